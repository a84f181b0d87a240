#include "EventFilterProxyModel.h"

namespace hermit::gui {

EventFilterProxyModel::EventFilterProxyModel(QObject* parent) : QSortFilterProxyModel(parent) {
    // Filtering a million rows again on every model signal would stall the GUI; filters change explicitly.
    setDynamicSortFilter(false);
}

void EventFilterProxyModel::setEventModel(EventTableModel* model) {
    events_ = model;
    setSourceModel(model);
}

void EventFilterProxyModel::setTextFilter(const QString& text) {
    if (text == text_) {
        return;
    }
    text_ = text;
    invalidateFilter();
}

void EventFilterProxyModel::setThreadFilter(std::optional<int32_t> tid) {
    if (tid == tid_) {
        return;
    }
    tid_ = tid;
    invalidateFilter();
}

void EventFilterProxyModel::setKindFilter(const QString& kind) {
    if (kind == kind_) {
        return;
    }
    kind_ = kind;
    invalidateFilter();
}

int EventFilterProxyModel::eventIndex(int proxy_row) const {
    return mapToSource(index(proxy_row, 0)).row();
}

int EventFilterProxyModel::proxyRow(int event_index) const {
    if (!events_) {
        return -1;
    }
    return mapFromSource(events_->index(event_index, 0)).row();
}

bool EventFilterProxyModel::filterAcceptsRow(int source_row, const QModelIndex& source_parent) const {
    if (!events_ || source_parent.isValid()) {
        return false;
    }
    if (tid_ && events_->tid(source_row) != *tid_) {
        return false;
    }
    const QLatin1String kind(events_->kindName(source_row));
    if (!kind_.isEmpty() && kind != kind_) {
        return false;
    }
    if (text_.isEmpty()) {
        return true;
    }
    return kind.contains(text_, Qt::CaseInsensitive) ||
           events_->description(source_row).contains(text_, Qt::CaseInsensitive);
}

} // namespace hermit::gui
