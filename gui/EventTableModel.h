#pragma once
// EventTableModel: the events of one recording as table rows (index, time, pid, tid, kind, description).
// Rows are made on demand from the shared LoadedRecording: time, tid and kind come from its columns, and
// only the rows on screen decode their event (pid and description). A frame that cannot be read shows its
// error as the description rather than ending the program.

#include "EventText.h"
#include "LoadedRecording.h"

#include <QAbstractTableModel>

#include <memory>

namespace hermit::gui {

class EventTableModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { IndexColumn, TimeColumn, PidColumn, TidColumn, KindColumn, DescriptionColumn, ColumnCount };

    explicit EventTableModel(SyscallNameLookup syscall_name = {}, QObject* parent = nullptr);

    void setRecording(std::shared_ptr<const LoadedRecording> recording);
    const std::shared_ptr<const LoadedRecording>& recording() const { return recording_; }
    Event event(int row) const { return recording_->events.at(static_cast<uint64_t>(row)); }
    int32_t tid(int row) const { return recording_->columns.tids[static_cast<size_t>(row)]; }
    const char* kindName(int row) const {
        return event_kind_name_of(recording_->columns.kinds[static_cast<size_t>(row)]);
    }
    const SyscallNameLookup& syscallName() const { return syscall_name_; }
    QString description(int row) const;

    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    SyscallNameLookup syscall_name_;
    std::shared_ptr<const LoadedRecording> recording_;
};

} // namespace hermit::gui
