#include "EventTableModel.h"

#include "formats/Error.h"

namespace hermit::gui {

EventTableModel::EventTableModel(SyscallNameLookup syscall_name, QObject* parent)
    : QAbstractTableModel(parent), syscall_name_(std::move(syscall_name)) {}

void EventTableModel::setRecording(std::shared_ptr<const LoadedRecording> recording) {
    beginResetModel();
    recording_ = std::move(recording);
    endResetModel();
}

QString EventTableModel::description(int row) const {
    try {
        return event_description(event(row), syscall_name_);
    } catch (const Error& error) {
        return tr("(cannot read this event: %1)").arg(QString::fromStdString(error.what()));
    }
}

int EventTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !recording_) {
        return 0;
    }
    return static_cast<int>(recording_->events.size());
}

int EventTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant EventTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || !recording_) {
        return {};
    }
    if (role == Qt::TextAlignmentRole && index.column() != DescriptionColumn &&
        index.column() != KindColumn) {
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (role != Qt::DisplayRole) {
        return {};
    }
    const int row = index.row();
    switch (index.column()) {
    case IndexColumn:
        return row;
    case TimeColumn:
        return QVariant::fromValue<qulonglong>(recording_->columns.times[static_cast<size_t>(row)]);
    case PidColumn:
        try {
            return event(row).pid;
        } catch (const Error&) {
            return {}; // the description says what is wrong
        }
    case TidColumn:
        return tid(row);
    case KindColumn:
        return QString::fromLatin1(kindName(row));
    case DescriptionColumn:
        return description(index.row());
    default:
        return {};
    }
}

QVariant EventTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) {
        return {};
    }
    switch (section) {
    case IndexColumn:
        return tr("Event");
    case TimeColumn:
        return tr("Time (ns)");
    case PidColumn:
        return tr("PID");
    case TidColumn:
        return tr("TID");
    case KindColumn:
        return tr("Kind");
    case DescriptionColumn:
        return tr("Description");
    default:
        return {};
    }
}

} // namespace hermit::gui
