#include "ReplayTimeline.h"

#include "formats/Error.h"

#include <signal.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <deque>
#include <iterator>
#include <set>

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

// Single steps before a stretch that comes back to an instruction is skipped to the last arrival there:
// short loops are cheaper to step through than the two forward runs a skip costs.
constexpr size_t kStepsBeforeSkipping = 1000;

// Whether `stop` is one that `leg` counts toward its end.
bool counts_for(const Leg& leg, const EngineStop& stop) {
    if (leg.counted) {
        const bool trap = stop.reason.kind == StopReason::Kind::SoftwareBreakpoint ||
                          (stop.reason.kind == StopReason::Kind::Signal && stop.reason.signal == SIGTRAP);
        return stop.counted_arrival || (trap && leg.stops.breakpoints.contains(stop.pc));
    }
    return leg.motion != Motion::Continue || stop.belongs_to(leg.stops);
}

// Ends the engine's count of arrivals however the run that needed it ends.
struct ArrivalCount {
    ReplayEngine& engine;
    ~ArrivalCount() { engine.stop_counting(); }
};

Leg arrival_leg(uint64_t address, uint64_t count) {
    return Leg{Motion::Continue, StopSet{{address}, {}, std::nullopt}, count, true};
}

// Arrivals counted between two images kept during a count: the most a jump to the last arrival runs after
// restoring the image before it (a fraction of a second with the hardware counter).
constexpr uint64_t kArrivalsPerImage = uint64_t{1} << 16;

// The legs that go on from `from` to `to`, when `to` goes through `from`: the same legs and then more, or
// the same legs up to a counted leg that `to` takes further.
std::optional<std::vector<Leg>> legs_after(const std::vector<Leg>& from, const std::vector<Leg>& to) {
    if (from.empty() || from.size() > to.size() || !std::equal(from.begin(), from.end() - 1, to.begin())) {
        return std::nullopt;
    }
    const size_t last = from.size() - 1;
    std::vector<Leg> rest(to.begin() + static_cast<std::ptrdiff_t>(last) + 1, to.end());
    if (from[last] == to[last]) {
        return rest;
    }
    if (from[last].counted && to[last].counted && from[last].stops == to[last].stops &&
        from[last].count < to[last].count) {
        rest.insert(rest.begin(),
                    arrival_leg(*to[last].stops.breakpoints.begin(), to[last].count - from[last].count));
        return rest;
    }
    return std::nullopt;
}

} // namespace

bool EngineStop::ended() const {
    return reason.kind == StopReason::Kind::Exited || reason.kind == StopReason::Kind::Terminated;
}

bool EngineStop::belongs_to(const StopSet& stops) const {
    if (at_event) {
        return stops.event.has_value();
    }
    if (at_exit || at_exec) {
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
    at_exec_ = stop.at_exec;
    if (stop.interrupted) {
        return; // no name for this position: the path stays at the last stop that has one
    }
    if (!path_.empty() && !path_.back().counted && path_.back().motion == motion &&
        path_.back().stops == stops) {
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
    if (at_exec_) {
        return history_begins_at(path_);
    }
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

EngineStop ReplayTimeline::next_stop(Motion motion) {
    EngineStop stop = engine_.run_forward(motion, interrupted_);
    if (stop.interrupted) {
        throw Interrupted{};
    }
    if (stop.ended()) {
        throw Error(ErrorCode::TimelineLost, "the replay ended before reaching an earlier stop again");
    }
    return stop;
}

void ReplayTimeline::run_leg(const Leg& leg, const StopSet& extra, const SeenStop& seen) {
    if (leg.counted && run_counted_leg(leg, extra, seen)) {
        return;
    }
    engine_.arm(united(leg.stops, extra));
    uint64_t taken = 0;
    while (taken < leg.count) {
        EngineStop stop = next_stop(leg.motion);
        const uint64_t progress = taken;
        if (counts_for(leg, stop)) {
            ++taken;
        }
        seen(stop, taken == leg.count, progress);
    }
}

bool ReplayTimeline::run_counted_leg(const Leg& leg, const StopSet& extra, const SeenStop& seen) {
    const uint64_t address = *leg.stops.breakpoints.begin();
    // An arrival that is also a stop of `extra` must be seen: only int3s show each one.
    if (extra.breakpoints.contains(address) || !engine_.count_arrivals(address, leg.count)) {
        return false;
    }
    const ArrivalCount counting{engine_};
    engine_.arm(extra);
    for (;;) {
        EngineStop stop = next_stop(Motion::Continue);
        if (stop.counted_arrival) {
            seen(stop, true, leg.count - 1);
            return true;
        }
        const uint64_t arrivals = engine_.counted_arrivals();
        if (arrivals >= leg.count) {
            // The kernel drops the limit's SIGTRAP when the guest blocks it.
            throw Error(ErrorCode::TimelineLost, "the replay went past an arrival it counted to");
        }
        seen(stop, false, arrivals);
    }
}

EngineStop ReplayTimeline::replay_path(const std::vector<Leg>& path) {
    const StopSet gdb_stops = engine_.armed_stops();
    std::optional<std::vector<Leg>> rest;
    if (image_path_) {
        rest = legs_after(*image_path_, path);
    }
    EngineStop last;
    if (rest && engine_.restore_image()) {
        last = image_stop_;
    } else {
        rest = path;
        last = engine_.restart();
    }
    for (const Leg& leg : *rest) {
        run_leg(leg, StopSet{}, [&last](const EngineStop& stop, bool, uint64_t) { last = stop; });
    }
    engine_.arm(gdb_stops);
    at_exec_ = last.at_exec;
    return last;
}

void ReplayTimeline::keep_image(const std::vector<Leg>& path, const EngineStop& stop) {
    image_path_.reset();
    if (engine_.keep_image()) {
        image_path_ = path;
        image_stop_ = stop;
    }
}

StopReason ReplayTimeline::at_beginning() {
    return history_begins_at({});
}

StopReason ReplayTimeline::history_begins_at(const std::vector<Leg>& path) {
    StopReason reason = replay_path(path).reason;
    path_ = path;
    reason.kind = StopReason::Kind::NoHistory;
    reason.history_end = StopReason::HistoryEnd::Begin;
    return reason;
}

StopReason ReplayTimeline::reverse_continue() {
    const StopSet wanted = engine_.armed_stops();
    std::deque<Hit> hits;
    const std::optional<std::vector<uint64_t>> ahead = stretch_breakpoints_ahead(wanted);
    if (ahead) {
        // The stretch's own leg again, without counted arrivals: its last hits are the landings ahead.
        hits = hits_along(stretch_.refines, wanted, ahead->size() + 1, false);
        const auto landed = [](uint64_t pc, const Hit& hit) {
            return hit.stop.reason.kind == StopReason::Kind::SoftwareBreakpoint && hit.stop.pc == pc;
        };
        if (hits.size() >= ahead->size() &&
            std::equal(ahead->begin(), ahead->end(), hits.end() - static_cast<std::ptrdiff_t>(ahead->size()),
                       landed)) {
            hits.resize(hits.size() - ahead->size());
        } else {
            spdlog::debug("the stretch's leg met other stops than its steps did: replaying the path instead");
            hits = hits_along(path_, wanted, 1, true);
        }
    } else {
        hits = hits_along(path_, wanted, 1, true);
    }
    engine_.arm(wanted);
    return go_to_hit(hits.empty() ? std::nullopt : std::optional<Hit>(hits.back()));
}

StopReason ReplayTimeline::go_to_hit(const std::optional<Hit>& hit) {
    if (!hit) {
        return at_beginning();
    }
    if (hit->stop.at_exec) {
        return history_begins_at(hit->path);
    }
    if (hit->stop.reason.kind != StopReason::Kind::Watchpoint) {
        StopReason reason = replay_path(hit->path).reason;
        path_ = hit->path;
        return reason;
    }
    // Going backwards, a write is found where it is about to happen: the instruction before the hit,
    // with the old value still in memory (what gdb compares to report the change).
    std::vector<Leg> before_write = previous_instruction(hit->path).value_or(std::vector<Leg>{});
    StopReason reason = replay_path(before_write).reason;
    path_ = std::move(before_write);
    reason.kind = StopReason::Kind::Watchpoint;
    reason.watch_address = hit->stop.reason.watch_address;
    reason.watch_kind = hit->stop.reason.watch_kind;
    return reason;
}

std::optional<std::vector<uint64_t>> ReplayTimeline::stretch_breakpoints_ahead(const StopSet& wanted) const {
    if (!wanted.watches.empty() || wanted.event || stretch_.refines.empty()) {
        return std::nullopt;
    }
    const std::optional<size_t> index = stretch_.index_of(path_);
    if (!index || *index == 0) {
        return std::nullopt;
    }
    std::vector<uint64_t> ahead;
    std::copy_if(stretch_.pcs.begin() + static_cast<std::ptrdiff_t>(*index) - 1, stretch_.pcs.end(),
                 std::back_inserter(ahead),
                 [&wanted](uint64_t pc) { return wanted.breakpoints.contains(pc); });
    return ahead;
}

std::deque<ReplayTimeline::Hit> ReplayTimeline::hits_along(const std::vector<Leg>& path,
                                                           const StopSet& wanted, size_t keep,
                                                           bool before_end) {
    std::deque<Hit> hits;
    std::vector<Leg> prefix;
    engine_.restart();
    for (size_t index = 0; index < path.size(); ++index) {
        const Leg& leg = path[index];
        const bool final_leg = index + 1 == path.size();
        uint64_t stops_in_leg = 0;
        // In a counted leg, a hit is named by the arrivals before it and the hits of `wanted` since.
        uint64_t arrivals = 0;
        uint64_t wanted_since_arrival = 0;
        run_leg(leg, wanted, [&](const EngineStop& stop, bool leg_end, uint64_t progress) {
            ++stops_in_leg;
            if (progress != arrivals) {
                arrivals = progress;
                wanted_since_arrival = 0;
            }
            if (!stop.belongs_to(wanted)) {
                return;
            }
            ++wanted_since_arrival;
            // A watchpoint hit at the end is a write just before it: still to be met going backwards. A
            // breakpoint hit there is where we stand. An exec is where history begins, even there.
            if (before_end && final_leg && leg_end && stop.reason.kind != StopReason::Kind::Watchpoint &&
                !stop.at_exec) {
                return;
            }
            if (stop.at_exec) {
                hits.clear();
            }
            Hit hit{prefix, stop};
            if (!leg.counted) {
                hit.path.push_back(Leg{leg.motion, united(leg.stops, wanted), stops_in_leg});
            } else {
                if (arrivals > 0) {
                    hit.path.push_back(arrival_leg(*leg.stops.breakpoints.begin(), arrivals));
                }
                hit.path.push_back(Leg{Motion::Continue, wanted, wanted_since_arrival});
            }
            hits.push_back(std::move(hit));
            if (hits.size() > keep) {
                hits.pop_front();
            }
        });
        prefix.push_back(leg);
    }
    return hits;
}

std::vector<Leg> ReplayTimeline::Stretch::position(size_t index) const {
    std::vector<Leg> path = base;
    if (index == 0) {
        return path;
    }
    const uint64_t pc = pcs[index - 1];
    const auto hits = static_cast<uint64_t>(std::count(pcs.begin(), pcs.begin() + index, pc));
    path.push_back(arrival_leg(pc, hits));
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
        previous.push_back(Leg{Motion::Continue, last.stops, last.count - 1, last.counted});
    }
    // Stepping arms the leg's own stops: gdb's are armed again however this ends.
    struct GdbStops {
        ReplayEngine& engine;
        const StopSet stops = engine.armed_stops();
        ~GdbStops() { engine.arm(stops); }
    } gdb_stops{engine_};
    replay_path(previous);
    stretch_ = Stretch{previous, {}, path};
    while (std::optional<std::vector<Leg>> anchor = step_toward(last)) {
        stretch_.base = std::move(*anchor);
        stretch_.pcs.clear();
    }
    return stretch_.position(stretch_.pcs.size() - 1);
}

std::optional<std::vector<Leg>> ReplayTimeline::step_toward(const Leg& leg) {
    engine_.arm(leg.stops);
    std::set<uint64_t> landed;
    size_t steps_before_skipping = kStepsBeforeSkipping;
    for (;;) {
        if (interrupted_()) {
            throw Interrupted{};
        }
        EngineStop stop = next_stop(Motion::StepAnyThread);
        stretch_.pcs.push_back(stop.pc);
        if (counts_for(leg, stop)) {
            return std::nullopt;
        }
        const bool again = !landed.insert(stop.pc).second;
        if (again && --steps_before_skipping == 0) {
            if (std::optional<std::vector<Leg>> anchor =
                    last_arrival_before(stretch_.position(stretch_.pcs.size()), stop.pc, leg)) {
                return anchor;
            }
            steps_before_skipping = kStepsBeforeSkipping;
        }
    }
}

std::optional<std::vector<Leg>> ReplayTimeline::last_arrival_before(const std::vector<Leg>& here,
                                                                    uint64_t address, const Leg& leg) {
    // Counted in rounds of kArrivalsPerImage, with an image kept at the end of each round.
    uint64_t arrivals = 0;
    for (bool leg_end = false; !leg_end;) {
        if (!engine_.count_arrivals(address, kArrivalsPerImage)) {
            return std::nullopt; // no counter: stepping on is as fast as arrivals counted by int3s
        }
        const ArrivalCount counting{engine_};
        for (;;) {
            EngineStop stop = next_stop(Motion::Continue);
            if (stop.counted_arrival) {
                arrivals += kArrivalsPerImage;
                std::vector<Leg> imaged = here;
                imaged.push_back(arrival_leg(address, arrivals));
                keep_image(imaged, stop);
                break;
            }
            if (counts_for(leg, stop)) {
                arrivals += engine_.counted_arrivals();
                leg_end = true;
                break;
            }
        }
    }
    std::vector<Leg> anchor = here;
    if (arrivals > 0) {
        anchor.push_back(arrival_leg(address, arrivals));
    }
    const EngineStop stop = replay_path(anchor);
    engine_.arm(leg.stops);
    if (arrivals == 0) {
        return std::nullopt;
    }
    keep_image(anchor, stop);
    return anchor;
}

void ReplayTimeline::go_to_event(uint64_t event) {
    const StopSet gdb_stops = engine_.armed_stops();
    const Leg leg{Motion::Continue, StopSet{{}, {}, event}, 1};
    run_leg(leg, StopSet{}, [](const EngineStop&, bool, uint64_t) {});
    engine_.arm(gdb_stops);
    path_.push_back(leg);
}

StopReason ReplayTimeline::start_over() {
    path_.clear();
    return replay_path({}).reason;
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
