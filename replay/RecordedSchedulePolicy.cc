#include "RecordedSchedulePolicy.h"

#include <fmt/format.h>

#include <algorithm>

namespace hermit::replay {

namespace {

std::string describe_runnable(const std::vector<int32_t>& runnable) {
    return fmt::format("runnable threads [{}]", fmt::join(runnable, ", "));
}

// The ScheduleEvent this scheduling point produced in the recording. Thread starts, exits and signals
// may be emitted around a scheduling point, before or after the choice, so they are looked past; any
// other event means the recorded run went on without a switch, and so does the exit of `current` while it
// can still run (it ran on to its end: a replay offers parked threads that the recording did not).
const Event* next_recorded_schedule(const ReplayLog& log, int32_t current) {
    const std::vector<Event>& events = log.events();
    for (uint64_t index = log.position(); index < events.size(); index++) {
        const EventPayload& payload = events[index].payload;
        if (std::holds_alternative<ScheduleEvent>(payload)) {
            return &events[index];
        }
        if (std::holds_alternative<ThreadExitEvent>(payload) && events[index].tid == current) {
            return nullptr;
        }
        if (!std::holds_alternative<ThreadStartEvent>(payload) &&
            !std::holds_alternative<ThreadExitEvent>(payload) &&
            !std::holds_alternative<SignalEvent>(payload)) {
            return nullptr;
        }
    }
    return nullptr;
}

} // namespace

int32_t RecordedSchedulePolicy::choose(const tracer::SchedulingPoint& point,
                                       const std::vector<int32_t>& runnable) {
    auto is_runnable = [&](int32_t tid) {
        return std::find(runnable.begin(), runnable.end(), tid) != runnable.end();
    };
    const bool current_runs_on = point.current_runnable && is_runnable(point.current_tid);
    const Event* next = next_recorded_schedule(log_, current_runs_on ? point.current_tid : 0);
    if (next != nullptr) {
        if (!is_runnable(next->tid)) {
            throw_desync(log_.position(), next->tid, describe_recorded_event(*next),
                         describe_runnable(runnable));
        }
        return next->tid;
    }
    if (current_runs_on) {
        return point.current_tid;
    }
    log_.stop_at_end_if_cut_short();
    throw_desync(
        log_.position(), point.current_tid,
        log_.at_end() ? std::string("end of recording") : describe_recorded_event(*log_.peek()),
        fmt::format("thread {} gave up the run token ({})", point.current_tid, describe_runnable(runnable)));
}

} // namespace hermit::replay
