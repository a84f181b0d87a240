#include "Event.h"

#include <type_traits>

namespace hermit {

const char* schedule_reason_name(ScheduleEvent::Reason reason) {
    switch (reason) {
    case ScheduleEvent::Reason::Yield:
        return "yield";
    case ScheduleEvent::Reason::Blocked:
        return "blocked";
    case ScheduleEvent::Reason::Exited:
        return "exited";
    case ScheduleEvent::Reason::Preempted:
        return "preempted";
    case ScheduleEvent::Reason::Started:
        return "started";
    }
    return "unknown";
}

const char* event_kind_name(const EventPayload& payload) {
    return std::visit(
        [](const auto& event) -> const char* {
            using Kind = std::decay_t<decltype(event)>;
            if constexpr (std::is_same_v<Kind, ScheduleEvent>) {
                return "schedule";
            } else if constexpr (std::is_same_v<Kind, SyscallEvent>) {
                return "syscall";
            } else if constexpr (std::is_same_v<Kind, SignalEvent>) {
                return "signal";
            } else if constexpr (std::is_same_v<Kind, ThreadStartEvent>) {
                return "thread_start";
            } else if constexpr (std::is_same_v<Kind, ThreadExitEvent>) {
                return "thread_exit";
            } else if constexpr (std::is_same_v<Kind, ExecEvent>) {
                return "exec";
            } else if constexpr (std::is_same_v<Kind, RdtscEvent>) {
                return "rdtsc";
            } else if constexpr (std::is_same_v<Kind, CpuidEvent>) {
                return "cpuid";
            } else {
                static_assert(std::is_same_v<Kind, StdioEvent>);
                return "stdio";
            }
        },
        payload);
}

} // namespace hermit
