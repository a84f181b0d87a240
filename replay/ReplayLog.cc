#include "ReplayLog.h"

#include "formats/Error.h"
#include "tracer/SyscallTable.h"

#include <fmt/format.h>

namespace hermit::replay {

std::string describe_syscall(int number) {
    const tracer::SyscallRow* row = tracer::find_syscall(number);
    return row != nullptr ? std::string(row->name) : fmt::format("syscall {}", number);
}

std::string describe_recorded_event(const Event& event) {
    return std::visit(
        [&](const auto& payload) -> std::string {
            using Kind = std::decay_t<decltype(payload)>;
            if constexpr (std::is_same_v<Kind, SyscallEvent>) {
                return describe_syscall(payload.number);
            } else if constexpr (std::is_same_v<Kind, ScheduleEvent>) {
                return fmt::format("schedule to thread {}", event.tid);
            } else if constexpr (std::is_same_v<Kind, SignalEvent>) {
                return fmt::format("signal {}", payload.number);
            } else if constexpr (std::is_same_v<Kind, ThreadStartEvent>) {
                return fmt::format("start of thread {}", event.tid);
            } else if constexpr (std::is_same_v<Kind, ThreadExitEvent>) {
                return fmt::format("exit of thread {} (status {})", event.tid, payload.status);
            } else if constexpr (std::is_same_v<Kind, ExecEvent>) {
                return fmt::format("exec of {}", payload.path);
            } else if constexpr (std::is_same_v<Kind, StdioEvent>) {
                return fmt::format("{} bytes on fd {}", payload.data.size(), payload.fd);
            } else {
                return event_kind_name(event.payload);
            }
        },
        event.payload);
}

void ReplayLog::stop_at_end_if_cut_short() const {
    if (!finished_ && at_end()) {
        throw Error(ErrorCode::RecordingCutShort, events_.size());
    }
}

void throw_desync(uint64_t index, int32_t tid, const std::string& expected, const std::string& actual) {
    throw Error(ErrorCode::ReplayDesync, index, tid, expected, actual);
}

} // namespace hermit::replay
