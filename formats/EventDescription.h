#pragma once
// One-line human descriptions of events, for `hermit diff`, `--verify`, record info and the GUI.
// formats/ knows no syscall names (the table lives in tracer/); callers pass a lookup, and without one a
// syscall is shown as "syscall_N".

#include "Event.h"

#include <functional>
#include <string>

namespace hermit {

using SyscallNameLookup = std::function<std::string(int number)>;

// "syscall_N".
std::string default_syscall_name(int number);
// `names(number)` when a lookup is given and returns a non-empty name, else default_syscall_name().
std::string syscall_name(int number, const SyscallNameLookup& names);

// e.g. "thread 3: syscall 202 futex(0x7f12, 0x80, 0x0) = 0", "thread 2: scheduled (thread 1 yielded)".
std::string describe_event(const Event& event, const SyscallNameLookup& names = {});

} // namespace hermit
