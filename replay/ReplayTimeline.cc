#include "ReplayTimeline.h"

#include "formats/Error.h"

#include <signal.h>

#include <algorithm>

namespace hermit::replay {

namespace {

using gdbserver::StopReason;

StopSet united(const StopSet& first, const StopSet& second) {
    StopSet both = first;
    both.breakpoints.insert(second.breakpoints.begin(), second.breakpoints.end());
    for (const WatchRange& watch : second.watches) {
        if (std::find(both.watches.begin(), both.watches.end(), watch) == both.watches.end()) {
            both.watches.push_back(watch);
        }
    }
    return both;
}

} // namespace

bool EngineStop::ended() const {
    return reason.kind == StopReason::Kind::Exited || reason.kind == StopReason::Kind::Terminated;
}

bool EngineStop::belongs_to(const StopSet& stops) const {
    if (at_event) {
        return stops.event.has_value();
    }
    if (at_exit) {
        return true;
    }
    switch (reason.kind) {
    case StopReason::Kind::Signal:
        // A step's end is a SIGTRAP stop; any other signal is the guest's, a stop whatever is armed.
        return reason.signal != SIGTRAP || stops.breakpoints.contains(pc);
    case StopReason::Kind::SoftwareBreakpoint:
    case StopReason::Kind::HardwareBreakpoint:
        return stops.breakpoints.contains(pc);
    case StopReason::Kind::Watchpoint:
        return std::any_of(stops.watches.begin(), stops.watches.end(), [this](const WatchRange& watch) {
            return watch.address == reason.watch_address && watch.kind == reason.watch_kind;
        });
    default:
        return false;
    }
}

void ReplayTimeline::moved_forward(Motion motion, const StopSet& stops, const EngineStop& stop) {
    if (stop.ended()) {
        return; // the replay is over: gdb sees the exit, and nothing is left to go back in
    }
    if (stop.interrupted) {
        return; // no name for this position: the path stays at the last stop that has one
    }
    if (!path_.empty() && path_.back().motion == motion && path_.back().stops == stops) {
        ++path_.back().count;
        return;
    }
    path_.push_back(Leg{motion, stops, 1});
}

StopReason ReplayTimeline::reverse_resume(gdbserver::ResumeKind kind, const gdbserver::ThreadId&,
                                          const gdbserver::InterruptCheck& interrupted) {
    {
        // gdb's check is the timeline's for this command only, however it ends.
        struct Scoped {
            gdbserver::InterruptCheck& check;
            ~Scoped() {
                check = [] { return false; };
            }
        } scoped{interrupted_};
        interrupted_ = interrupted;
        try {
            return kind == gdbserver::ResumeKind::Continue ? reverse_continue() : reverse_step();
        } catch (const Interrupted&) {
        }
    }
    StopReason reason = replay_path(path_).reason; // back to where the command began
    reason.kind = StopReason::Kind::Signal;
    reason.signal = SIGINT;
    return reason;
}

StopReason ReplayTimeline::reverse_step() {
    std::optional<std::vector<Leg>> previous = previous_instruction(path_);
    if (!previous) {
        return at_beginning();
    }
    StopReason reason = replay_path(*previous).reason;
    path_ = std::move(*previous);
    reason.kind = StopReason::Kind::Signal; // the end of a step, wherever it landed
    reason.signal = SIGTRAP;
    return reason;
}

void ReplayTimeline::run_leg(const Leg& leg, const StopSet& armed,
                             const std::function<void(const EngineStop&, bool)>& seen) {
    engine_.arm(armed);
    uint64_t taken = 0;
    while (taken < leg.count) {
        EngineStop stop = engine_.run_forward(leg.motion, interrupted_);
        if (stop.interrupted) {
            throw Interrupted{};
        }
        if (stop.ended()) {
            throw Error(ErrorCode::TimelineLost, "the replay ended before reaching an earlier stop again");
        }
        if (leg.motion != Motion::Continue || stop.belongs_to(leg.stops)) {
            ++taken;
        }
        seen(stop, taken == leg.count);
    }
}

EngineStop ReplayTimeline::replay_path(const std::vector<Leg>& path) {
    const StopSet gdb_stops = engine_.armed_stops();
    EngineStop last = engine_.restart();
    for (const Leg& leg : path) {
        run_leg(leg, leg.stops, [&last](const EngineStop& stop, bool) { last = stop; });
    }
    engine_.arm(gdb_stops);
    return last;
}

StopReason ReplayTimeline::at_beginning() {
    StopReason reason = replay_path({}).reason;
    path_.clear();
    reason.kind = StopReason::Kind::NoHistory;
    reason.history_end = StopReason::HistoryEnd::Begin;
    return reason;
}

StopReason ReplayTimeline::reverse_continue() {
    const StopSet wanted = engine_.armed_stops();
    // First replay: the path again, with gdb's stops armed as well; each of their hits before the end of
    // the path is a candidate, named by a path of its own (the legs before it and a leg with both sets).
    std::optional<std::vector<Leg>> last_hit;
    EngineStop last_hit_stop;
    std::vector<Leg> prefix;
    engine_.restart();
    for (size_t index = 0; index < path_.size(); ++index) {
        const Leg& leg = path_[index];
        const StopSet armed = united(leg.stops, wanted);
        const bool final_leg = index + 1 == path_.size();
        uint64_t stops_in_leg = 0;
        run_leg(leg, armed, [&](const EngineStop& stop, bool leg_end) {
            ++stops_in_leg;
            // A watchpoint hit at the current position is a write just before it: still to be met going
            // backwards. A breakpoint hit there is where we stand.
            const bool here = final_leg && leg_end && stop.reason.kind != StopReason::Kind::Watchpoint;
            if (stop.belongs_to(wanted) && !here) {
                last_hit = prefix;
                last_hit->push_back(Leg{leg.motion, armed, stops_in_leg});
                last_hit_stop = stop;
            }
        });
        prefix.push_back(leg);
    }
    engine_.arm(wanted);
    if (!last_hit) {
        return at_beginning();
    }
    if (last_hit_stop.reason.kind != StopReason::Kind::Watchpoint) {
        StopReason reason = replay_path(*last_hit).reason;
        path_ = std::move(*last_hit);
        return reason;
    }
    // Going backwards, a write is found where it is about to happen: the instruction before the hit,
    // with the old value still in memory (what gdb compares to report the change).
    std::vector<Leg> before_write = previous_instruction(*last_hit).value_or(std::vector<Leg>{});
    StopReason reason = replay_path(before_write).reason;
    path_ = std::move(before_write);
    reason.kind = StopReason::Kind::Watchpoint;
    reason.watch_address = last_hit_stop.reason.watch_address;
    reason.watch_kind = last_hit_stop.reason.watch_kind;
    return reason;
}

std::vector<Leg> ReplayTimeline::Stretch::position(size_t index) const {
    std::vector<Leg> path = base;
    if (index == 0) {
        return path;
    }
    const uint64_t pc = pcs[index - 1];
    const auto hits = static_cast<uint64_t>(std::count(pcs.begin(), pcs.begin() + index, pc));
    path.push_back(Leg{Motion::Continue, StopSet{{pc}, {}, std::nullopt}, hits});
    return path;
}

std::optional<size_t> ReplayTimeline::Stretch::index_of(const std::vector<Leg>& path) const {
    if (path == base) {
        return 0;
    }
    if (path.size() != base.size() + 1 || !std::equal(base.begin(), base.end(), path.begin())) {
        return std::nullopt;
    }
    for (size_t index = 1; index <= pcs.size(); ++index) {
        if (position(index) == path) {
            return index;
        }
    }
    return std::nullopt;
}

std::optional<std::vector<Leg>> ReplayTimeline::previous_instruction(const std::vector<Leg>& path) {
    if (path.empty()) {
        return std::nullopt;
    }
    if (std::optional<size_t> index = stretch_.index_of(path); index && *index > 0) {
        return stretch_.position(*index - 1);
    }
    std::vector<Leg> previous = path;
    Leg last = previous.back();
    previous.pop_back();
    if (last.motion != Motion::Continue) {
        if (last.count > 1) {
            --last.count;
            previous.push_back(last);
        }
        return previous;
    }
    // The end of a continue leg: replay up to the stop before it and single-step (any thread) from there
    // to the leg's end, remembering where each step landed, so that the positions in between are named
    // by "the k-th arrival at pc" and further steps back need no stepping.
    if (last.count > 1) {
        previous.push_back(Leg{Motion::Continue, last.stops, last.count - 1});
    }
    replay_path(previous);
    engine_.arm(last.stops);
    stretch_ = Stretch{previous, {}};
    for (;;) {
        if (interrupted_()) {
            throw Interrupted{};
        }
        EngineStop stop = engine_.run_forward(Motion::StepAnyThread, interrupted_);
        if (stop.ended()) {
            throw Error(ErrorCode::TimelineLost, "the replay ended before reaching the current stop again");
        }
        stretch_.pcs.push_back(stop.pc);
        if (stop.belongs_to(last.stops)) {
            break;
        }
    }
    return stretch_.position(stretch_.pcs.size() - 1);
}

void ReplayTimeline::go_to_event(uint64_t event) {
    const StopSet gdb_stops = engine_.armed_stops();
    const Leg leg{Motion::Continue, StopSet{{}, {}, event}, 1};
    run_leg(leg, leg.stops, [](const EngineStop&, bool) {});
    engine_.arm(gdb_stops);
    path_.push_back(leg);
}

size_t ReplayTimeline::add_checkpoint() {
    checkpoints_.push_back(path_);
    return checkpoints_.size();
}

bool ReplayTimeline::restart_at(size_t checkpoint) {
    if (checkpoint == 0 || checkpoint > checkpoints_.size()) {
        return false;
    }
    replay_path(checkpoints_[checkpoint - 1]);
    path_ = checkpoints_[checkpoint - 1];
    return true;
}

} // namespace hermit::replay
