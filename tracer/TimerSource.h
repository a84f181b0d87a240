#pragma once
// TimerSource: timers the guest armed on its virtual clock (the Virtualizer's alarm timers). The Session
// fires the due ones at every scheduling point and, when every guest thread waits, lets virtual time jump
// to the next deadline, so a timer fires at the same point of every run.

#include <cstdint>
#include <optional>

namespace hermit::tracer {

class TimerSource {
public:
    virtual ~TimerSource() = default;
    // Delivers the timers whose deadline has passed (their signals become pending in the guest); whether
    // there were any.
    virtual bool fire_due_timers() = 0;
    // Moves virtual time to the next deadline and fires what is due then; false when no timer is armed.
    virtual bool advance_to_next_timer() = 0;
    // The next deadline of a timer on elapsed virtual time, if any is armed.
    virtual std::optional<uint64_t> next_timer_deadline() const = 0;
    // Whether a timer on elapsed virtual time is armed (a thread blocked in the kernel may wait for it).
    virtual bool armed() const = 0;
};

} // namespace hermit::tracer
