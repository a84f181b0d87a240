#pragma once
// EventDetailsView: everything about the selected event (index, thread, kind, decoded syscall arguments and
// result, memory the syscall wrote, signal, exec...), as read-only text.

#include "EventText.h"
#include "RecordedEvents.h"

#include <QPlainTextEdit>

namespace hermit::gui {

class EventDetailsView : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit EventDetailsView(SyscallNameLookup syscall_name = {}, QWidget* parent = nullptr);

    void displayEvent(const Event& event, uint64_t index);
    // Decodes the event first; shows the error when its frame cannot be read.
    void displayEvent(const RecordedEvents& events, uint64_t index);
    void clearEvent();

private:
    SyscallNameLookup syscall_name_;
};

} // namespace hermit::gui
