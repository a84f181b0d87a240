// DebugTarget as the forward-only ReplayEngine of its ReplayTimeline: running to the next stop, starting the
// run over, arming stops, counting arrivals and keeping an image of the process (DebugTarget.h).
#include "DebugTarget.h"

#include "formats/Error.h"
#include "tracer/Task.h"

#include <spdlog/spdlog.h>
#include <sys/user.h>

#include <cerrno>
#include <cstring>

namespace hermit::replay {

using gdbserver::StopReason;
using gdbserver::ThreadId;

EngineStop DebugTarget::run_forward(Motion motion, const gdbserver::InterruptCheck& interrupted) {
    // gdb lifts a breakpoint at the pc before resuming; the timeline's own runs do not, so step over it
    // here, or the thread would stop at it again at once.
    const uint64_t pc = stop_pc_;
    bool planted_at_pc = false;
    on_tracer([&] { planted_at_pc = breakpoints_.contains(pc); });
    if (!planted_at_pc) {
        return advance(motion, interrupted);
    }
    on_tracer([&] { unplant_breakpoint(pc); });
    EngineStop stepped = advance(motion == Motion::StepAnyThread ? motion : Motion::Step, interrupted);
    if (stepped.ended()) {
        return stepped;
    }
    on_tracer([&] { plant_breakpoint(pc); });
    if (motion != Motion::Continue || stepped.reason.kind != StopReason::Kind::Signal) {
        return stepped;
    }
    return advance(motion, interrupted);
}

EngineStop DebugTarget::advance(Motion motion, const gdbserver::InterruptCheck& interrupted) {
    motion_ = motion;
    if (bridge_->resume(interrupted)) {
        return current_stop();
    }
    return EngineStop{end_of_run(), 0};
}

EngineStop DebugTarget::current_stop() const {
    return EngineStop{stop_,         stop_pc_,     stop_at_event_, stop_at_exit_, stop_interrupted_,
                      stop_counted_, stop_at_exec_};
}

StopReason DebugTarget::end_of_run() {
    StopReason exited;
    exited.thread = ThreadId{stop_.thread.pid, stop_.thread.pid};
    try {
        int status = bridge_->exit_status().value_or(128 + SIGKILL);
        if (status > 128) {
            exited.kind = StopReason::Kind::Terminated;
            exited.signal = status - 128;
        } else {
            exited.kind = StopReason::Kind::Exited;
            exited.exit_code = status;
        }
    } catch (const std::exception& error) {
        spdlog::error("{}", error.what());
        exited.kind = StopReason::Kind::Terminated;
        exited.signal = SIGKILL;
    }
    return exited;
}

EngineStop DebugTarget::restart() {
    diversion_.reset(); // its process goes with the run
    arrival_counter_.reset();
    image_.reset();
    events_in_run_ = 0;
    const StopSet armed = armed_stops();
    bridge_->abort();
    bridge_ = std::make_unique<DebugBridge>();
    stop_ = StopReason{};
    stop_pc_ = 0;
    stop_host_tid_ = 0;
    stopped_.clear();
    event_count_ = 0;
    stops_since_event_ = 0;
    debugged_pid_ = 0;
    processes_seen_.clear();
    stepping_past_.clear();
    event_stop_deferred_ = false;
    one_shot_.reset();
    replayer_ = nullptr;
    armed_event_.reset();
    stop_at_event_ = false;
    stop_at_exit_ = false;
    stop_interrupted_ = false;
    stop_counted_ = false;
    stop_at_exec_ = false;
    program_ = 0;
    breakpoints_.clear();
    waiting_breakpoints_.clear();
    // Armed again at the first stop: a watch armed from the exec on would stop the dynamic loader (and,
    // emulated, single-step all of it).
    watches_.fill(std::nullopt);
    requested_watches_.clear();
    applied_generation_.clear();
    stepping_.clear();
    watch_steps_.clear();
    watched_before_step_.clear();
    motion_ = Motion::Continue;
    if (!start()) {
        throw Error(ErrorCode::TimelineLost, "the replay ended before its first stop");
    }
    arm(armed);
    return current_stop();
}

bool DebugTarget::count_arrivals(uint64_t address, std::optional<uint64_t> limit) {
    if (!ArrivalCounter::available()) {
        return false;
    }
    on_tracer([&] {
        arrival_counter_ = std::make_unique<ArrivalCounter>(address, limit);
        // The thread at the stop has not executed its instruction yet; unless the stop was a counted arrival
        // (RF set), resuming fires a breakpoint there first.
        constexpr uint64_t kResumeFlag = 0x10000;
        tracer::Task* stopped = stopped_.empty() ? nullptr : stopped_.front();
        if (stopped != nullptr && stopped->registers().rip == address &&
            (stopped->registers().eflags & kResumeFlag) == 0) {
            arrival_counter_->discount_next_fire(stopped->host_tid());
        }
    });
    return true;
}

uint64_t DebugTarget::counted_arrivals() {
    uint64_t arrivals = 0;
    on_tracer([&] { arrivals = arrival_counter_ ? arrival_counter_->arrivals() : 0; });
    return arrivals;
}

void DebugTarget::stop_counting() {
    on_tracer([&] { arrival_counter_.reset(); });
}

bool DebugTarget::keep_image() {
    bool kept = false;
    on_tracer([&] {
        image_.reset();
        if (stopped_.size() != 1 || stop_at_exit_) {
            return;
        }
        image_.emplace(*stopped_.front());
        image_host_tid_ = stopped_.front()->host_tid();
        image_events_ = events_in_run_;
        kept = true;
    });
    return kept;
}

bool DebugTarget::restore_image() {
    bool restored = false;
    on_tracer([&] {
        if (!image_ || events_in_run_ != image_events_ || stopped_.size() != 1 || stop_at_exit_ ||
            stopped_.front()->host_tid() != image_host_tid_ ||
            !image_->kernel_state_unchanged(*stopped_.front())) {
            return;
        }
        image_->restore(*stopped_.front());
        stop_pc_ = image_->registers().rip;
        restored = true;
    });
    return restored;
}

void DebugTarget::on_resume(tracer::Task& task) {
    if (!arrival_counter_ || task.pid() != debugged_pid_) {
        return;
    }
    if (!arrival_counter_->prepare(task.host_tid())) {
        spdlog::warn("cannot count arrivals at {:#x} in thread {}: {}", arrival_counter_->address(),
                     task.tid(), std::strerror(errno));
    }
}

StopSet DebugTarget::armed_stops() {
    StopSet stops;
    on_tracer([&] {
        for (const auto& [address, original] : breakpoints_) {
            stops.breakpoints.insert(address);
        }
        stops.breakpoints.insert(waiting_breakpoints_.begin(), waiting_breakpoints_.end());
        stops.watches = armed_watches();
        stops.event = armed_event_;
    });
    return stops;
}

void DebugTarget::arm(const StopSet& stops) {
    on_tracer([&] {
        std::vector<uint64_t> lifted;
        for (const auto& [address, original] : breakpoints_) {
            if (!stops.breakpoints.contains(address)) {
                lifted.push_back(address);
            }
        }
        for (uint64_t address : lifted) {
            unplant_breakpoint(address);
        }
        std::erase_if(waiting_breakpoints_,
                      [&](uint64_t address) { return !stops.breakpoints.contains(address); });
        for (uint64_t address : stops.breakpoints) {
            plant_breakpoint(address);
        }
        if (stops.watches != armed_watches()) {
            set_watch_slots(stops.watches);
        }
        if (stops.event != armed_event_) {
            armed_event_ = stops.event;
            if (armed_event_ && replayer_ != nullptr) {
                stop_at_syscall_from(*armed_event_);
            }
        }
    });
}

} // namespace hermit::replay
