#pragma once
// SchedulePolicy: decides which runnable thread gets the run token at a scheduling point. Threads are
// named by guest-visible tid, and `runnable` is sorted ascending, so a policy sees the same inputs on
// every run and its choices are deterministic. Implementations: round-robin (default), random and PCT
// (--chaos), and the replayer's policy that follows a recorded schedule.

#include "formats/Event.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace hermit::tracer {

struct SchedulingPoint {
    int32_t current_tid = 0; // the thread that is giving up (or may keep) the token; 0 at start
    bool current_runnable = false;
    ScheduleEvent::Reason reason = ScheduleEvent::Reason::Yield;
    uint64_t event_index = 0; // events emitted so far
};

class SchedulePolicy {
public:
    virtual ~SchedulePolicy() = default;
    // Returns one element of `runnable` (never empty).
    virtual int32_t choose(const SchedulingPoint& point, const std::vector<int32_t>& runnable) = 0;
    // A thread appeared or went away (PCT keeps per-thread priorities).
    virtual void on_thread_start(int32_t /*tid*/) {}
    virtual void on_thread_exit(int32_t /*tid*/) {}
    // A policy that follows a recorded schedule is offered every waiting thread, also those whose wait
    // the tracer cannot see to be over (on replay their inputs come from the recording).
    virtual bool follows_recording() const { return false; }
    // --chaos: a thread parked in a timed wait or sleep may run at any scheduling point, its deadline
    // taken as a hint (the clock then moves to it), so schedules where the longer sleep ends first are
    // explored too, as a loaded machine may run them. Otherwise it runs once virtual time reaches it.
    virtual bool perturbs_time() const { return false; }
};

struct SchedulePolicyOptions {
    std::string heuristic = "none"; // none (round-robin), random, pct
    uint64_t seed = 0;
    uint32_t pct_depth = 3;
    uint64_t expected_length = 1000; // PCT: estimated number of scheduling points
};

std::unique_ptr<SchedulePolicy> make_schedule_policy(const SchedulePolicyOptions& options);

} // namespace hermit::tracer
