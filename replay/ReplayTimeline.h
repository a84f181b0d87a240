#pragma once
// ReplayTimeline: where a replay under the debugger stands in time, and how to get back to any earlier
// point (rr's split: the timeline owns positions and navigation, the ReplayEngine only runs forward).
//
// Without a PMU there is no instruction counter to name a point of the replay, so a position is named by
// how it is reached from the start: a path of legs, each "run forward with these stops armed up to the
// Nth of them" or "N single steps". A replay is deterministic, so the same legs replayed from the start
// always reach the same state. Going back is replaying (a prefix of) the path, found by a first replay
// that watches for the stops gdb asks about:
// - reverse-continue replays the path with gdb's current breakpoints and watchpoints armed as well,
//   remembers the last of their hits before the current position, and replays again to it (for a
//   watched write, to the instruction before it); with none, it stops at the start of the replay
//   (NoHistory Begin, gdb's "No more reverse-execution history").
// - reverse-step goes to the previous instruction: the last single-step leg one step shorter, or, after
//   a continue leg, the stop before it plus as many single steps (of any thread) as it took minus one;
//   the pcs of such a stepped stretch are remembered, so further steps back replay without stepping.
// Checkpoints (`monitor checkpoint`) are saved paths, so `monitor restart N` is a replay of that path.
//
// gdb's Ctrl-C stops a forward run wherever the guest is: that position has no name (no instruction
// counter), so the path stays at the last named stop, and a continue with the same stops armed still
// names its next stop exactly. Ctrl-C during a reverse operation goes back to where it started.

#include "ReplayEngine.h"
#include "gdbserver/Target.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace hermit::replay {

// One forward move: run with `stops` armed until the `count`-th stop (every instruction when stepping).
struct Leg {
    Motion motion = Motion::Continue;
    StopSet stops;
    uint64_t count = 0;
    bool operator==(const Leg&) const = default;
};

class ReplayTimeline : public gdbserver::ReverseExecution {
public:
    explicit ReplayTimeline(ReplayEngine& engine) : engine_(engine) {}

    // The engine went forward by one resume of the debugger, with `stops` armed, and stopped at `stop`.
    void moved_forward(Motion motion, const StopSet& stops, const EngineStop& stop);

    gdbserver::StopReason reverse_resume(gdbserver::ResumeKind kind, const gdbserver::ThreadId& thread,
                                         const gdbserver::InterruptCheck& interrupted) override;

    // Runs forward to the first trapped syscall at or after recorded event `event` (the stop is right
    // after it). Throws E062 when the replay ends first.
    void go_to_event(uint64_t event);
    // Runs the replay again to the current position (what a spoiled diversion needs); returns its stop.
    gdbserver::StopReason replay_to_current() { return replay_path(path_).reason; }
    // `monitor checkpoint`: remembers the current position; returns its number (from 1).
    size_t add_checkpoint();
    // `monitor restart N`: goes back (or forward) to checkpoint N; false when there is no such checkpoint.
    bool restart_at(size_t checkpoint);

private:
    // Thrown out of a replay of legs when gdb asks for a stop.
    struct Interrupted {};

    gdbserver::StopReason reverse_continue();
    gdbserver::StopReason reverse_step();
    // The path to the instruction before the end of `path` (nullopt: `path` is the start of the replay).
    std::optional<std::vector<Leg>> previous_instruction(const std::vector<Leg>& path);
    // Starts the replay over and runs the legs of `path`; returns the last stop (the first stop of the
    // replay for an empty path). The armed stops are gdb's again afterwards.
    EngineStop replay_path(const std::vector<Leg>& path);
    // Runs `leg` forward from the current position with `armed` (a superset of its stops) armed, calling
    // `seen(stop, is_leg_end)` at every stop.
    void run_leg(const Leg& leg, const StopSet& armed,
                 const std::function<void(const EngineStop&, bool)>& seen);
    gdbserver::StopReason at_beginning();

    // The instructions from `base` on, single-stepped once: pcs[i] is where step i+1 landed. Position i
    // of the stretch is named "the k-th arrival at pcs[i-1] after base" (a continue to a breakpoint
    // there), which replays without stepping.
    struct Stretch {
        std::vector<Leg> base;
        std::vector<uint64_t> pcs;
        std::vector<Leg> position(size_t index) const;
        std::optional<size_t> index_of(const std::vector<Leg>& path) const;
    };

    ReplayEngine& engine_;
    // gdb's Ctrl-C during the current reverse operation; never outside one.
    gdbserver::InterruptCheck interrupted_ = [] { return false; };
    Stretch stretch_;
    std::vector<Leg> path_;
    std::vector<std::vector<Leg>> checkpoints_;
};

} // namespace hermit::replay
