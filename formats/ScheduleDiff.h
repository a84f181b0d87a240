#pragma once
// Comparison of two event streams of the same program (two recordings, or a recording and a re-run for
// `hermit run --verify`): the first event where they diverge, plus totals per thread. Events match by
// position; two events are equivalent when kind and thread agree and, for syscalls, number, arguments
// and result; for schedules the chosen thread (the event's tid); other kinds compare their whole
// payload. Logical times are not compared, so a diverging clock shows up at the event that reads it.

#include "Event.h"
#include "EventDescription.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hermit {

struct ThreadEventCounts {
    int32_t tid = 0;
    uint64_t events_a = 0;
    uint64_t events_b = 0;
};

struct EventDivergence {
    uint64_t index = 0;     // position of the first differing event
    std::optional<Event> a; // nullopt when stream A ended before `index`
    std::optional<Event> b;
    std::string reason; // e.g. "syscall arguments differ", "run B ended after 12 events"
};

struct ScheduleDiffResult {
    uint64_t events_a = 0;
    uint64_t events_b = 0;
    std::vector<ThreadEventCounts> threads; // ascending by tid, threads of either side
    std::optional<EventDivergence> divergence;

    bool identical() const { return !divergence.has_value(); }
};

// Empty when the events are equivalent, else what differs.
std::string event_difference(const Event& a, const Event& b);

ScheduleDiffResult diff_events(const std::vector<Event>& a, const std::vector<Event>& b);

// "runs diverged at event 12: thread 3: syscall ... / thread 2: ..." style multi-line summary.
std::string describe_divergence(const EventDivergence& divergence, const SyscallNameLookup& names = {});

} // namespace hermit
