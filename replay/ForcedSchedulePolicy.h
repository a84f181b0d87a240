#pragma once
// ForcedSchedulePolicy: follows a prescribed list of choices for the first scheduling decisions of a run,
// then lets a fallback policy decide, and logs every decision it makes. `hermit analyze` builds its
// experiments from it: "the failing run's first k choices, then the passing policy" or "these two
// decisions swapped". A decision is one call of choose(), i.e. a scheduling point with several runnable
// threads, so a choice list taken from one run's log replays that run's schedule exactly.
//
// replay::RecordedSchedulePolicy follows a recording's event stream as the replayer advances through it;
// this policy needs no recording and no replayer, only the decision numbers, and can stop following.

#include "tracer/SchedulePolicy.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace hermit::replay {

struct ScheduleDecision {
    uint64_t event_index = 0; // events emitted before the decision; the ScheduleEvent that follows has it
    int32_t current_tid = 0;  // the thread giving up the token (0 at start)
    ScheduleEvent::Reason reason = ScheduleEvent::Reason::Yield;
    std::vector<int32_t> runnable; // ascending
    int32_t chosen = 0;
};

class ForcedSchedulePolicy : public tracer::SchedulePolicy {
public:
    // Called at each decision before the choice is made, with the decision's number (0-based): every guest
    // thread is ptrace-stopped then, so the observer may inspect them.
    using DecisionObserver = std::function<void(uint64_t decision, const ScheduleDecision&)>;

    ForcedSchedulePolicy(std::vector<int32_t> forced, std::unique_ptr<tracer::SchedulePolicy> fallback);

    void set_observer(DecisionObserver observer) { observer_ = std::move(observer); }

    int32_t choose(const tracer::SchedulingPoint& point, const std::vector<int32_t>& runnable) override;
    void on_thread_start(int32_t tid) override { fallback_->on_thread_start(tid); }
    void on_thread_exit(int32_t tid) override { fallback_->on_thread_exit(tid); }
    // Sleepers are offered at every decision, in the passing run too: a failing schedule found by --chaos
    // may have woken the longer sleep first, and forcing its choices needs the same threads to choose from.
    bool perturbs_time() const override { return true; }

    const std::vector<ScheduleDecision>& decisions() const { return decisions_; }
    // The first forced decision whose thread was not runnable: the run did not go as the list assumed
    // (from there on the fallback decided).
    std::optional<uint64_t> first_unfollowed() const { return first_unfollowed_; }

private:
    std::vector<int32_t> forced_;
    std::unique_ptr<tracer::SchedulePolicy> fallback_;
    DecisionObserver observer_;
    std::vector<ScheduleDecision> decisions_;
    std::optional<uint64_t> first_unfollowed_;
};

} // namespace hermit::replay
