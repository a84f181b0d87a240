#pragma once
// BlockingModel: which guest threads wait, for what, and when they can run again, with one thread running at
// a time. A thread waits in one of three ways (GuestThread's states): parked at the entry of a syscall the
// WaitPredictor says would wait (Waiting, maybe with a deadline on virtual time), interrupted while asleep in
// the kernel in one nothing traps (Blocked: a pipe read under `hermit run`), or ready at a scheduling point.
// The model answers, from the guest's own state and never from the clock: which threads may take the token
// (candidates), whether any other than the holder could run now, and what comes next when every thread
// waits (the earliest parked deadline or virtual timer). Its context-switch alarm tells when the holder has
// left its CPU, so a holder asleep in the kernel is found when it sleeps. The Session acts on the answers
// (interrupts, parks, schedules); see docs/ARCHITECTURE.md, "Blocked threads" and "Parked waits".

#include "ContextSwitchAlarm.h"
#include "GuestThread.h"
#include "SchedulePolicy.h"
#include "TimerSource.h"
#include "WaitPredictor.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace hermit::tracer {

namespace virt {
class VirtualClock;
}

class BlockingModel {
public:
    // `threads` and `policy` are the Session's, and outlive the model.
    BlockingModel(ThreadTable& threads, const std::unique_ptr<SchedulePolicy>& policy)
        : threads_(threads), policy_(policy) {}

    void set_virtual_clock(virt::VirtualClock* clock) { clock_ = clock; }
    void set_timer_source(TimerSource* timers) { timers_ = timers; }

    // ---- what the guest did, which predictions depend on ----
    // A guest thread runs again, or ran up to a stop or a notification: every prediction may change.
    // (One made while the holder runs, by a check on it, is only good until the holder's next stop.)
    void guest_runs() { predictions_.clear(); }
    // The guest stopped at the tracer, was notified, or got a signal from outside or a timer: a wait for
    // children may be over.
    void guest_moved() { ++guest_epoch_; }
    // Virtual time moved (a jump, a timer fired): both of the above.
    void time_moved() {
        guest_runs();
        guest_moved();
    }
    // The thread is gone (`leader`: its process too).
    void forget(pid_t host_tid, bool leader);

    // ---- predictions ----
    // Whether the kernel would make the stopped `task` wait in `call` now, asked afresh (an entry's
    // decision).
    bool would_wait(Task& task, const SyscallStop& call) { return waits_.would_wait(task, call); }
    // Whether `thread`, stopped, would wait in `call`. Answers hold until a guest thread runs or virtual
    // time moves; a wait for children holds until guest_moved().
    bool predicted_to_wait(Thread& thread, const SyscallStop& call);
    // A parked thread's wait is over: by prediction, or its deadline passed.
    bool wait_is_over(Thread& thread);
    // The threads that may get the token, sorted by guest tid: ready and blocked threads, and waiting
    // threads whose wait is over. When there are none, every waiting thread, and `only_waiting` is set:
    // the guest now waits for the outside world (or is deadlocked), and the one chosen waits in the kernel.
    // A policy that follows a recording is offered the waiting threads always.
    std::vector<Thread*> candidates(bool& only_waiting);
    // Whether a thread other than `holder` could run now: it is ready (and its syscall, if it stopped at
    // one, would not wait), or its wait is over by the prediction of what it waits in, or a signal is held
    // for it.
    bool others_can_run(pid_t holder);
    // Whether a thread other than `holder` waits for the token at all, whether or not it could run.
    bool others_want_token(pid_t holder) const;

    // ---- virtual time ----
    // The earliest deadline of a parked thread's timed wait or sleep.
    std::optional<uint64_t> next_wait_deadline() const;
    // Every thread waits: virtual time jumps to what comes first, a parked thread's deadline (its wait
    // times out) or a timer (its signal or expiration may end waits). False when there is neither.
    bool jump_to_next_deadline();

    // ---- the holder's context switches ----
    // Turns the alarm on when the host lets the tracer count switches; its signal must then be read from
    // the caller's signalfd.
    bool enable_switch_alarm();
    // The signal came: the holder may have been switched out.
    void on_switch_signal() { switch_signalled_ = true; }
    // The holder is resumed: when it is a thread that sleeps in untrapped syscalls, its switches from here
    // on are news (those that stopped it so far are not); otherwise no thread is watched.
    void watch_holder(const Thread& holder);
    // Whether the holder was switched out since it was last looked at (once per signal).
    bool holder_left_cpu(pid_t holder);
    // Whether the holder is being looked at because it left its CPU, not because a check interval passed
    // (cleared by asking).
    bool take_check_after_switch() { return std::exchange(check_after_switch_, false); }

private:
    // Under --chaos a parked deadline counts as passed at any scheduling point (perturbs_time).
    bool deadline_passed(const Thread& thread) const;
    // A thread found blocked in an untrapped syscall is worth retrying only once the prediction for that
    // syscall says it would not wait; until then it waits like a parked thread.
    bool blocked_wait_is_over(Thread& thread);

    ThreadTable& threads_;
    const std::unique_ptr<SchedulePolicy>& policy_;
    virt::VirtualClock* clock_ = nullptr;
    TimerSource* timers_ = nullptr;
    WaitPredictor waits_;
    std::map<pid_t, bool> predictions_; // since a guest thread last ran, by host tid
    uint64_t guest_epoch_ = 0;
    std::map<pid_t, std::pair<uint64_t, bool>> child_wait_predictions_; // with the epoch they hold in
    std::optional<ContextSwitchAlarm> switch_alarm_;
    bool switch_signalled_ = false;
    uint64_t switches_seen_ = 0; // the holder's count when it was last looked at
    bool check_after_switch_ = false;
};

} // namespace hermit::tracer
