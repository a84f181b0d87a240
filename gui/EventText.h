#pragma once
// How the GUI words an event: a one-line description for the event table and a multi-line text for the
// details panel. Syscall names come from an injected lookup because formats/ and gui/ do not depend on the
// tracer's syscall table; the CLI passes one built from tracer/SyscallTable.

#include "formats/Event.h"

#include <QString>

#include <cstdint>
#include <functional>

namespace hermit::gui {

using SyscallNameLookup = std::function<QString(int number)>;

// "syscall 39": used when no lookup is given or the lookup does not know the number.
QString fallback_syscall_name(int number);

QString event_description(const Event& event, const SyscallNameLookup& syscall_name);
QString event_details(const Event& event, uint64_t index, const SyscallNameLookup& syscall_name);

} // namespace hermit::gui
