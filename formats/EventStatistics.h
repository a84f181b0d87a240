#pragma once
// Aggregate counts over an event stream: by kind and by thread. Used by `hermit record info`,
// `hermit diff` and the GUI summary.

#include "Event.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace hermit {

struct ThreadStatistics {
    int32_t tid = 0;
    int32_t pid = 0;
    uint64_t events = 0;
    uint64_t syscalls = 0;
    uint64_t schedules = 0; // times the thread received the run token
    uint64_t first_time = 0;
    uint64_t last_time = 0;
};

struct EventStatistics {
    uint64_t total = 0;
    std::map<std::string, uint64_t> by_kind; // keys from event_kind_name()
    std::vector<ThreadStatistics> threads;   // ascending by tid
};

EventStatistics compute_statistics(const std::vector<Event>& events);

} // namespace hermit
