#include "ScheduleDiff.h"

#include <fmt/format.h>

#include <map>

namespace hermit {

namespace {
constexpr int32_t kExecveNumber = 59; // x86-64
constexpr int32_t kExecveatNumber = 322;
} // namespace

std::string event_difference(const Event& a, const Event& b) {
    if (a.payload.index() != b.payload.index()) {
        return fmt::format("event kinds differ ({} vs {})", event_kind_name(a.payload),
                           event_kind_name(b.payload));
    }
    if (a.tid != b.tid) {
        return std::holds_alternative<ScheduleEvent>(a.payload)
                   ? fmt::format("a different thread was scheduled ({} vs {})", a.tid, b.tid)
                   : fmt::format("threads differ ({} vs {})", a.tid, b.tid);
    }
    if (std::holds_alternative<ScheduleEvent>(a.payload)) {
        return {};
    }
    if (const auto* syscall_a = std::get_if<SyscallEvent>(&a.payload)) {
        const auto& syscall_b = std::get<SyscallEvent>(b.payload);
        if (syscall_a->number != syscall_b.number) {
            return fmt::format("syscall numbers differ ({} vs {})", syscall_a->number, syscall_b.number);
        }
        // execve's arguments point into the image that is being replaced (for the first exec, the address
        // space hermit forked from, which ASLR moves on every run); the ExecEvent compares path and argv.
        const bool is_execve = syscall_a->number == kExecveNumber || syscall_a->number == kExecveatNumber;
        if (!is_execve && syscall_a->args != syscall_b.args) {
            return "syscall arguments differ";
        }
        if (syscall_a->result != syscall_b.result) {
            return fmt::format("syscall results differ ({} vs {})", syscall_a->result, syscall_b.result);
        }
        return {};
    }
    if (a.payload != b.payload) {
        return fmt::format("{} events differ", event_kind_name(a.payload));
    }
    return {};
}

ScheduleDiffResult diff_events(const std::vector<Event>& a, const std::vector<Event>& b) {
    ScheduleDiffResult result;
    result.events_a = a.size();
    result.events_b = b.size();
    std::map<int32_t, ThreadEventCounts> threads;
    for (const auto& event : a) {
        auto& counts = threads[event.tid];
        counts.tid = event.tid;
        ++counts.events_a;
    }
    for (const auto& event : b) {
        auto& counts = threads[event.tid];
        counts.tid = event.tid;
        ++counts.events_b;
    }
    for (const auto& [tid, counts] : threads) {
        result.threads.push_back(counts);
    }
    const size_t common = std::min(a.size(), b.size());
    for (size_t i = 0; i < common; ++i) {
        std::string difference = event_difference(a[i], b[i]);
        if (!difference.empty()) {
            result.divergence = EventDivergence{i, a[i], b[i], std::move(difference)};
            return result;
        }
    }
    if (a.size() != b.size()) {
        EventDivergence divergence;
        divergence.index = common;
        if (a.size() > common) {
            divergence.a = a[common];
            divergence.reason = fmt::format("run B ended after {} events", common);
        } else {
            divergence.b = b[common];
            divergence.reason = fmt::format("run A ended after {} events", common);
        }
        result.divergence = std::move(divergence);
    }
    return result;
}

std::string describe_divergence(const EventDivergence& divergence, const SyscallNameLookup& names) {
    auto side = [&names](const std::optional<Event>& event) {
        return event ? describe_event(*event, names) : std::string("(no event: the run had ended)");
    };
    return fmt::format("{}\n  A: {}\n  B: {}", divergence.reason, side(divergence.a), side(divergence.b));
}

} // namespace hermit
