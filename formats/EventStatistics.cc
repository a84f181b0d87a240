#include "EventStatistics.h"

namespace hermit {

EventStatistics compute_statistics(const std::vector<Event>& events) {
    EventStatistics statistics;
    std::map<int32_t, ThreadStatistics> threads;
    for (const auto& event : events) {
        ++statistics.total;
        ++statistics.by_kind[event_kind_name(event.payload)];
        auto [it, inserted] = threads.try_emplace(event.tid);
        auto& thread = it->second;
        if (inserted) {
            thread.tid = event.tid;
            thread.pid = event.pid;
            thread.first_time = event.time;
        }
        ++thread.events;
        thread.last_time = event.time;
        if (std::holds_alternative<SyscallEvent>(event.payload)) {
            ++thread.syscalls;
        } else if (std::holds_alternative<ScheduleEvent>(event.payload)) {
            ++thread.schedules;
        }
    }
    for (auto& [tid, thread] : threads) {
        statistics.threads.push_back(thread);
    }
    return statistics;
}

} // namespace hermit
