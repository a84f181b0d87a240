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
//   a continue leg, the stop before it plus single steps (of any thread) up to the leg's end, minus one;
//   the pcs of such a stepped stretch are remembered, so further steps back replay without stepping.
//   A stretch that keeps coming back to the same instruction (a loop) is not stepped through: one
//   forward run counts the arrivals at that instruction up to the leg's end, the replay jumps to the last
//   of them, and stepping goes on from there. Arrivals are counted by a hardware breakpoint counter
//   (ArrivalCounter.h) where the host has one, so a million loop iterations cost seconds, not hours.
//   The count keeps an image of the process every so many arrivals (ProcessImage.h), and the jump starts
//   from the last one; the arrival jumped to keeps an image too, so steps back near it need no new run
//   from the start. An image is only good while the replay passes no event (nothing outside the process
//   changes then), which is what a stretch without syscalls is.
// An exec of the debugged process is where its history begins going backwards: gdb then knows only the
// new program, so reverse commands stop there (no going back into the program it replaced).
// Checkpoints (`monitor checkpoint`) are saved paths, so `monitor restart N` is a replay of that path.
//
// gdb's Ctrl-C stops a forward run wherever the guest is: that position has no name (no instruction
// counter), so the path stays at the last named stop, and a continue with the same stops armed still
// names its next stop exactly. Ctrl-C during a reverse operation goes back to where it started.

#include "ReplayEngine.h"
#include "gdbserver/Target.h"

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

namespace hermit::replay {

// One forward move: run with `stops` armed until the `count`-th stop (every instruction when stepping).
// A `counted` leg has one breakpoint and ends at the `count`-th arrival at it; nothing else it meets
// (a guest signal) counts.
struct Leg {
    Motion motion = Motion::Continue;
    StopSet stops;
    uint64_t count = 0;
    bool counted = false;
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
    // Starts the replay over (gdb's `run`); returns its first stop.
    gdbserver::StopReason start_over();
    // `monitor checkpoint`: remembers the current position; returns its number (from 1).
    size_t add_checkpoint();
    // `monitor restart N`: goes back (or forward) to checkpoint N; false when there is no such checkpoint.
    bool restart_at(size_t checkpoint);

private:
    // Thrown out of a replay of legs when gdb asks for a stop.
    struct Interrupted {};
    // Called at every stop of a leg: the stop, whether it ends the leg, and the leg's progress before it
    // (stops counted so far; for a counted leg, arrivals so far).
    using SeenStop = std::function<void(const EngineStop& stop, bool leg_end, uint64_t progress)>;

    // A hit of gdb's stops on the way to a position: the path that names it, and its stop.
    struct Hit {
        std::vector<Leg> path;
        EngineStop stop;
    };

    gdbserver::StopReason reverse_continue();
    gdbserver::StopReason go_to_hit(const std::optional<Hit>& hit);
    // Replays `path` from the start with `wanted` armed as well and returns the last `keep` hits of
    // `wanted` on the way, oldest first; a breakpoint hit at the end of `path` (where it stands) is not one
    // when `before_end`.
    std::deque<Hit> hits_along(const std::vector<Leg>& path, const StopSet& wanted, size_t keep,
                               bool before_end);
    // When the current position is in the stepped stretch and `wanted` has breakpoints only: its landings
    // on them from the current position to the stretch's end, in order. reverse-continue then replays the
    // leg the stretch steps through rather than the current path: it needs no counted arrivals, and its
    // last hits are these landings.
    std::optional<std::vector<uint64_t>> stretch_breakpoints_ahead(const StopSet& wanted) const;
    gdbserver::StopReason reverse_step();
    // The path to the instruction before the end of `path` (nullopt: `path` is the start of the replay).
    std::optional<std::vector<Leg>> previous_instruction(const std::vector<Leg>& path);
    // Goes to `path`: from the kept image when `path` goes on from it and the image is still good, else
    // from the start of a new run; returns the last stop (the first stop of the replay for an empty path).
    // The armed stops are gdb's again afterwards.
    EngineStop replay_path(const std::vector<Leg>& path);
    // Keeps an image of the process at the end of `path`, where the engine stands after `stop`.
    void keep_image(const std::vector<Leg>& path, const EngineStop& stop);
    // Runs `leg` forward from the current position with `extra` stops armed besides its own.
    void run_leg(const Leg& leg, const StopSet& extra, const SeenStop& seen);
    // A counted leg with the hardware counter; false when it cannot be used (nothing ran then).
    bool run_counted_leg(const Leg& leg, const StopSet& extra, const SeenStop& seen);
    // The next stop of a forward run; throws when gdb interrupts or the replay ends.
    EngineStop next_stop(Motion motion);
    // Single-steps stretch_ on toward the end of `leg` (its next stop that counts). Returns nullopt at that
    // end, or the path of the last arrival, before it, at an instruction the steps keep coming back to,
    // where the replay now stands.
    std::optional<std::vector<Leg>> step_toward(const Leg& leg);
    // Counts the arrivals at `address` from the current position (`here`) to the end of `leg`; when there
    // are any, replays to the last of them and returns its path, else replays back to `here`.
    std::optional<std::vector<Leg>> last_arrival_before(const std::vector<Leg>& here, uint64_t address,
                                                        const Leg& leg);
    gdbserver::StopReason at_beginning();
    // Goes to `path`, where nothing before can be gone back to (the start, or an exec): gdb's "No more
    // reverse-execution history".
    gdbserver::StopReason history_begins_at(const std::vector<Leg>& path);

    // The instructions from `base` on, single-stepped once: pcs[i] is where step i+1 landed. Position i
    // of the stretch is named "the k-th arrival at pcs[i-1] after base" (a continue to a breakpoint
    // there), which replays without stepping.
    struct Stretch {
        std::vector<Leg> base;
        std::vector<uint64_t> pcs;
        std::vector<Leg> refines; // the path whose last stop the stretch steps to
        std::vector<Leg> position(size_t index) const;
        std::optional<size_t> index_of(const std::vector<Leg>& path) const;
    };

    ReplayEngine& engine_;
    // gdb's Ctrl-C during the current reverse operation; never outside one.
    gdbserver::InterruptCheck interrupted_ = [] { return false; };
    Stretch stretch_;
    // Where the engine's kept image stands, and the stop there.
    std::optional<std::vector<Leg>> image_path_;
    EngineStop image_stop_;
    std::vector<Leg> path_;
    bool at_exec_ = false; // the engine stands at an exec of the debugged process
    std::vector<std::vector<Leg>> checkpoints_;
};

} // namespace hermit::replay
