#pragma once
// The schedule policies behind SchedulePolicy: round-robin for ordinary runs, and the two chaos policies
// (random and PCT) for --chaos. Each is a pure function of its seed and the sequence of scheduling points
// it is shown, so the same seed and the same guest give the same schedule on every run.
//
// Without a PMU the scheduling points (trapped syscalls: futex, sleeps, sched_yield, clone, exit, ...) are
// the only places where a thread can be preempted; --preemption-timeout cannot interrupt a thread that runs
// without making syscalls. The policies therefore only ever decide at scheduling points.

#include "SchedulePolicy.h"
#include "virt/GuestRandom.h"

#include <cstdint>
#include <map>
#include <vector>

namespace hermit::tracer {

// "none": the next runnable tid after the current one in ascending order, wrapping around. The current
// thread never keeps the token when another thread is runnable, even at a sched_yield, so every runnable
// thread makes progress (fairness) and spin loops on sched_yield terminate.
class RoundRobinPolicy : public SchedulePolicy {
public:
    int32_t choose(const SchedulingPoint& point, const std::vector<int32_t>& runnable) override;
};

// "random": a uniformly random runnable thread at every scheduling point, drawn from the scheduler stream
// of --seed (independent of the guest data stream of the same seed).
class RandomPolicy : public SchedulePolicy {
public:
    explicit RandomPolicy(uint64_t seed);
    int32_t choose(const SchedulingPoint& point, const std::vector<int32_t>& runnable) override;
    bool perturbs_time() const override { return true; }

private:
    virt::GuestRandom random_;
};

// "pct": draws from the scheduler stream of --seed, like "random". Probabilistic Concurrency Testing
// (Burckhardt, Kothari, Musuvathi, Nagarakatte, ASPLOS 2010, "A Randomized Scheduler with Probabilistic
// Guarantees of Finding Bugs"). Every thread gets a random distinct priority >= depth when it starts; depth-1
// change points are drawn uniformly from the scheduling points 1..expected_length; at the i-th change point
// the running thread's priority drops to i, below every undemoted thread. The highest-priority runnable
// thread always runs. For a program with n threads and k scheduling points, one run finds a given bug of
// depth d with probability >= 1 / (n * k^(d-1)).
class PctPolicy : public SchedulePolicy {
public:
    PctPolicy(uint64_t seed, uint32_t depth, uint64_t expected_length);
    int32_t choose(const SchedulingPoint& point, const std::vector<int32_t>& runnable) override;
    bool perturbs_time() const override { return true; }
    void on_thread_start(int32_t tid) override;
    void on_thread_exit(int32_t tid) override;

    // The scheduling point numbers (1-based, ascending) at which a priority change happens.
    const std::vector<uint64_t>& change_points() const { return change_points_; }
    // Current priority of a live thread (larger runs first); threads never announced rank lowest.
    int64_t priority(int32_t tid) const;

private:
    void demote(int32_t tid, int64_t new_priority);

    virt::GuestRandom random_;
    uint32_t depth_;
    std::vector<uint64_t> change_points_;
    size_t next_change_ = 0;
    uint64_t points_seen_ = 0;
    // Undemoted threads from lowest to highest priority; a thread's priority is depth + its position.
    std::vector<int32_t> ranked_;
    std::map<int32_t, int64_t> demoted_;
};

} // namespace hermit::tracer
