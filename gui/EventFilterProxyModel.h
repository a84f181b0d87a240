#pragma once
// EventFilterProxyModel: the rows of an EventTableModel that match a text (in the kind or the
// description, case-insensitive), a thread and a kind. Rows keep recording order.

#include "EventTableModel.h"

#include <QSortFilterProxyModel>

#include <optional>

namespace hermit::gui {

class EventFilterProxyModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit EventFilterProxyModel(QObject* parent = nullptr);

    void setEventModel(EventTableModel* model);
    void setTextFilter(const QString& text);
    void setThreadFilter(std::optional<int32_t> tid);
    // A name from event_kind_name ("syscall", "signal", ...), or empty for every kind.
    void setKindFilter(const QString& kind);

    // Event index of a proxy row.
    int eventIndex(int proxy_row) const;
    // Proxy row showing an event, or -1 when the filters hide it.
    int proxyRow(int event_index) const;

protected:
    bool filterAcceptsRow(int source_row, const QModelIndex& source_parent) const override;

private:
    EventTableModel* events_ = nullptr;
    QString text_;
    std::optional<int32_t> tid_;
    QString kind_;
};

} // namespace hermit::gui
