#include "SchedulePolicies.h"

#include "formats/Error.h"

#include <algorithm>
#include <set>

namespace hermit::tracer {

namespace {

// Uniform in [0, bound) without modulo bias; bound > 0.
uint64_t uniform_below(virt::GuestRandom& random, uint64_t bound) {
    // Values under `threshold` would make some residues more likely than others.
    const uint64_t threshold = (0 - bound) % bound;
    for (;;) {
        uint64_t value = random.next();
        if (value >= threshold) {
            return value % bound;
        }
    }
}

} // namespace

int32_t RoundRobinPolicy::choose(const SchedulingPoint& point, const std::vector<int32_t>& runnable) {
    auto after_current = std::upper_bound(runnable.begin(), runnable.end(), point.current_tid);
    return after_current == runnable.end() ? runnable.front() : *after_current;
}

RandomPolicy::RandomPolicy(uint64_t seed) : random_(seed, virt::GuestRandom::Stream::Scheduler) {}

int32_t RandomPolicy::choose(const SchedulingPoint& /*point*/, const std::vector<int32_t>& runnable) {
    return runnable[uniform_below(random_, runnable.size())];
}

PctPolicy::PctPolicy(uint64_t seed, uint32_t depth, uint64_t expected_length)
    : random_(seed, virt::GuestRandom::Stream::Scheduler), depth_(std::max<uint32_t>(depth, 1)) {
    const uint64_t length = std::max<uint64_t>(expected_length, 1);
    const uint64_t wanted = std::min<uint64_t>(depth_ - 1, length);
    std::set<uint64_t> points;
    while (points.size() < wanted) {
        points.insert(1 + uniform_below(random_, length));
    }
    change_points_.assign(points.begin(), points.end());
}

void PctPolicy::on_thread_start(int32_t tid) {
    if (demoted_.count(tid) != 0 || std::find(ranked_.begin(), ranked_.end(), tid) != ranked_.end()) {
        return;
    }
    // A uniformly random position among the existing threads keeps the priorities a uniformly random
    // permutation however many threads arrive later.
    ranked_.insert(ranked_.begin() + static_cast<std::ptrdiff_t>(uniform_below(random_, ranked_.size() + 1)),
                   tid);
}

void PctPolicy::on_thread_exit(int32_t tid) {
    demoted_.erase(tid);
    std::erase(ranked_, tid);
}

int64_t PctPolicy::priority(int32_t tid) const {
    if (auto found = demoted_.find(tid); found != demoted_.end()) {
        return found->second;
    }
    auto position = std::find(ranked_.begin(), ranked_.end(), tid);
    if (position == ranked_.end()) {
        return 0;
    }
    return static_cast<int64_t>(depth_) + (position - ranked_.begin());
}

void PctPolicy::demote(int32_t tid, int64_t new_priority) {
    if (std::find(ranked_.begin(), ranked_.end(), tid) == ranked_.end() && demoted_.count(tid) == 0) {
        return;
    }
    std::erase(ranked_, tid);
    demoted_[tid] = new_priority;
}

int32_t PctPolicy::choose(const SchedulingPoint& point, const std::vector<int32_t>& runnable) {
    // The scheduler may not announce the initial thread; meeting a thread first here is its start.
    for (int32_t tid : runnable) {
        on_thread_start(tid);
    }
    ++points_seen_;
    if (next_change_ < change_points_.size() && change_points_[next_change_] == points_seen_) {
        ++next_change_;
        demote(point.current_tid, static_cast<int64_t>(next_change_));
    }
    return *std::max_element(runnable.begin(), runnable.end(), [this](int32_t left, int32_t right) {
        return priority(left) < priority(right);
    });
}

std::unique_ptr<SchedulePolicy> make_schedule_policy(const SchedulePolicyOptions& options) {
    if (options.heuristic == "random") {
        return std::make_unique<RandomPolicy>(options.seed);
    }
    if (options.heuristic == "pct") {
        return std::make_unique<PctPolicy>(options.seed, options.pct_depth, options.expected_length);
    }
    if (options.heuristic == "none") {
        return std::make_unique<RoundRobinPolicy>();
    }
    throw Error(ErrorCode::UsageError,
                "unknown --sched-heuristic '" + options.heuristic + "': expected none, random or pct");
}

} // namespace hermit::tracer
