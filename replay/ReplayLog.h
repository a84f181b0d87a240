#pragma once
// ReplayLog: the events of a recording and the replay's position in them. A replay position is the index
// of the next recorded event the replay has not reproduced yet (DESIGN.md "replay position"); the
// Replayer advances it, the RecordedSchedulePolicy reads it.

#include "formats/Event.h"

#include <cstdint>
#include <vector>

namespace hermit::replay {

class ReplayLog {
public:
    // `finished`: false for a recording hermit was stopped in (killed), whose events end before the guest.
    explicit ReplayLog(std::vector<Event> events, bool finished = true)
        : events_(std::move(events)), finished_(finished) {}

    uint64_t position() const { return position_; }
    uint64_t size() const { return events_.size(); }
    bool at_end() const { return position_ >= events_.size(); }
    // The next recorded event, or nullptr at the end.
    const Event* peek() const { return at_end() ? nullptr : &events_[position_]; }
    // Consumes the next event; only call when !at_end().
    const Event& take() { return events_[position_++]; }
    const std::vector<Event>& events() const { return events_; }
    // At the end of an unfinished recording the replay stops there: throws E042. Else nothing.
    void stop_at_end_if_cut_short() const;

private:
    std::vector<Event> events_;
    bool finished_ = true;
    uint64_t position_ = 0;
};

// Short human descriptions for desync messages: "read", "schedule to thread 3", "exit of thread 2".
std::string describe_recorded_event(const Event& event);
std::string describe_syscall(int number);

// Throws hermit::Error(ReplayDesync) for event `index`.
[[noreturn]] void throw_desync(uint64_t index, int32_t tid, const std::string& expected,
                               const std::string& actual);

} // namespace hermit::replay
