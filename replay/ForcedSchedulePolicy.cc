#include "ForcedSchedulePolicy.h"

#include <algorithm>

namespace hermit::replay {

ForcedSchedulePolicy::ForcedSchedulePolicy(std::vector<int32_t> forced,
                                           std::unique_ptr<tracer::SchedulePolicy> fallback)
    : forced_(std::move(forced)), fallback_(std::move(fallback)) {}

int32_t ForcedSchedulePolicy::choose(const tracer::SchedulingPoint& point,
                                     const std::vector<int32_t>& runnable) {
    const uint64_t number = decisions_.size();
    ScheduleDecision decision{point.event_index, point.current_tid, point.reason, runnable, 0};
    if (observer_) {
        observer_(number, decision);
    }
    // The fallback sees every decision, forced or not, so that a stateful policy (PCT priorities, the
    // random stream) is in the same state it would have reached deciding the forced prefix itself.
    const int32_t fallback_choice = fallback_->choose(point, runnable);
    decision.chosen = fallback_choice;
    if (number < forced_.size() && !first_unfollowed_) {
        if (std::find(runnable.begin(), runnable.end(), forced_[number]) != runnable.end()) {
            decision.chosen = forced_[number];
        } else {
            first_unfollowed_ = number;
        }
    }
    decisions_.push_back(decision);
    return decision.chosen;
}

} // namespace hermit::replay
