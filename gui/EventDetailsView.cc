#include "EventDetailsView.h"

#include "formats/Error.h"

#include <QFontDatabase>

namespace hermit::gui {

EventDetailsView::EventDetailsView(SyscallNameLookup syscall_name, QWidget* parent)
    : QPlainTextEdit(parent), syscall_name_(std::move(syscall_name)) {
    setReadOnly(true);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    clearEvent();
}

void EventDetailsView::displayEvent(const Event& event, uint64_t index) {
    setPlainText(event_details(event, index, syscall_name_));
}

void EventDetailsView::displayEvent(const RecordedEvents& events, uint64_t index) {
    try {
        displayEvent(events.at(index), index);
    } catch (const Error& error) {
        setPlainText(tr("event %1 cannot be read:\n%2").arg(index).arg(QString::fromStdString(error.what())));
    }
}

void EventDetailsView::clearEvent() {
    setPlainText(tr("Select an event to see its details."));
}

} // namespace hermit::gui
