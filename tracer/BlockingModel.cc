#include "BlockingModel.h"

#include "virt/VirtualClock.h"

#include <sys/syscall.h>

#include <algorithm>

namespace hermit::tracer {

void BlockingModel::forget(pid_t host_tid, bool leader) {
    if (leader) {
        waits_.forget(host_tid);
    }
    if (switch_alarm_) {
        switch_alarm_->forget(host_tid);
    }
    child_wait_predictions_.erase(host_tid);
}

bool BlockingModel::predicted_to_wait(Thread& thread, const SyscallStop& call) {
    const pid_t host_tid = thread.task->host_tid();
    const bool waits_for_children = call.number == SYS_wait4 || call.number == SYS_waitid;
    if (const auto lasting = child_wait_predictions_.find(host_tid);
        waits_for_children && lasting != child_wait_predictions_.end() &&
        lasting->second.first == guest_epoch_) {
        return lasting->second.second;
    }
    auto [prediction, made] = predictions_.try_emplace(host_tid, false);
    if (made) {
        prediction->second = waits_.would_wait(*thread.task, call);
    }
    if (waits_for_children) {
        child_wait_predictions_[host_tid] = {guest_epoch_, prediction->second};
    }
    return prediction->second;
}

bool BlockingModel::wait_is_over(Thread& thread) {
    return deadline_passed(thread) || !predicted_to_wait(thread, thread.syscall);
}

bool BlockingModel::deadline_passed(const Thread& thread) const {
    const std::optional<uint64_t> deadline = thread.task->wait_deadline();
    return deadline && clock_ != nullptr && (policy_->perturbs_time() || *deadline <= clock_->elapsed_ns());
}

bool BlockingModel::blocked_wait_is_over(Thread& thread) {
    return !predicted_to_wait(thread, syscall_of(thread.task->registers()));
}

std::vector<Thread*> BlockingModel::candidates(bool& only_waiting) {
    std::vector<Thread*> result;
    std::vector<Thread*> waiting;
    for (auto& [host_tid, thread] : threads_) {
        // A held outside signal ends any wait: it is delivered when the thread next runs.
        const bool signalled = !thread.outside_signals.empty();
        if (thread.state == ThreadState::Ready) {
            result.push_back(&thread);
        } else if (thread.state == ThreadState::Blocked) {
            (signalled || blocked_wait_is_over(thread) ? result : waiting).push_back(&thread);
        } else if (thread.state == ThreadState::Waiting) {
            (signalled || wait_is_over(thread) ? result : waiting).push_back(&thread);
        }
    }
    only_waiting = result.empty() && !waiting.empty();
    if (only_waiting || policy_->follows_recording()) {
        result.insert(result.end(), waiting.begin(), waiting.end());
    }
    std::sort(result.begin(), result.end(),
              [](Thread* a, Thread* b) { return a->task->tid() < b->task->tid(); });
    return result;
}

bool BlockingModel::others_can_run(pid_t holder) {
    return std::any_of(threads_.begin(), threads_.end(), [&](auto& entry) {
        Thread& thread = entry.second;
        if (entry.first == holder) {
            return false;
        }
        if (!thread.outside_signals.empty()) {
            return thread.state == ThreadState::Ready || thread.state == ThreadState::Blocked ||
                   thread.state == ThreadState::Waiting;
        }
        if (thread.state == ThreadState::Ready) {
            // One that gave up the token at a syscall's entry (a shell's wait4) would only park there.
            const SyscallStop next = syscall_of(thread.task->registers());
            return !thread.entry_deferred || !WaitPredictor::predicts(next) ||
                   !predicted_to_wait(thread, next);
        }
        if (thread.state == ThreadState::Waiting) {
            return wait_is_over(thread);
        }
        if (thread.state == ThreadState::Blocked) {
            const SyscallStop blocked_in = syscall_of(thread.task->registers());
            return WaitPredictor::predicts(blocked_in) && !predicted_to_wait(thread, blocked_in);
        }
        return false;
    });
}

bool BlockingModel::others_want_token(pid_t holder) const {
    return std::any_of(threads_.begin(), threads_.end(), [holder](const auto& entry) {
        const ThreadState state = entry.second.state;
        return entry.first != holder && (state == ThreadState::Ready || state == ThreadState::Blocked ||
                                         state == ThreadState::Waiting);
    });
}

std::optional<uint64_t> BlockingModel::next_wait_deadline() const {
    std::optional<uint64_t> earliest;
    for (const auto& [host_tid, thread] : threads_) {
        const std::optional<uint64_t> deadline = thread.task->wait_deadline();
        if (thread.state == ThreadState::Waiting && deadline && (!earliest || *deadline < *earliest)) {
            earliest = deadline;
        }
    }
    return earliest;
}

bool BlockingModel::jump_to_next_deadline() {
    const std::optional<uint64_t> parked = next_wait_deadline();
    const std::optional<uint64_t> timer = timers_ != nullptr ? timers_->next_timer_deadline() : std::nullopt;
    if (parked && clock_ != nullptr && (!timer || *parked <= *timer)) {
        clock_->sleep_until(*parked);
        if (timers_ != nullptr) {
            timers_->fire_due_timers();
        }
        return true;
    }
    return timer && timers_->advance_to_next_timer();
}

bool BlockingModel::enable_switch_alarm() {
    if (ContextSwitchAlarm::available()) {
        switch_alarm_.emplace();
    }
    return switch_alarm_.has_value();
}

void BlockingModel::watch_holder(const Thread& holder) {
    if (!switch_alarm_) {
        return;
    }
    const pid_t host_tid = holder.task->host_tid();
    if (holder.sleeps_untrapped && switch_alarm_->watch(host_tid)) {
        switches_seen_ = switch_alarm_->switches(host_tid);
    } else {
        switch_alarm_->unwatch();
    }
}

bool BlockingModel::holder_left_cpu(pid_t holder) {
    if (!std::exchange(switch_signalled_, false)) {
        return false;
    }
    const uint64_t switches = switch_alarm_ ? switch_alarm_->switches(holder) : 0;
    if (switches == switches_seen_) {
        return false;
    }
    switches_seen_ = switches;
    check_after_switch_ = true;
    return true;
}

} // namespace hermit::tracer
