#pragma once
// RaceAnalysis: `hermit analyze`. Given a failing chaos schedule and a passing one of the same program, it
// finds the racing pair: the one scheduling decision whose two orders decide pass versus fail, and the two
// threads' steps it orders. Every run is deterministic, so the decisions of the failing run form a list
// that can be replayed (ForcedSchedulePolicy). Forcing the first k choices of the failing run and letting
// the passing policy decide the rest gives a run that passes for k = 0 and fails for k = all; bisecting
// over k finds a decision d such that forcing d choices passes and forcing d + 1 fails. At d the failing
// run gives the token to thread F; the thread P that the passing policy picks there instead is confirmed
// as F's partner by swapping: P's step, then F's, must pass (otherwise the other runnable threads are
// tried). A last run in the failing order unwinds both threads' stacks at d and at the end of their steps.
//
// Without a PMU the steps are bounded by scheduling points (trapped syscalls), so each side is reported as
// the syscall where the thread resumes plus its stack, and where its step ends; the racing accesses lie
// between. All runs use the failing run's guest data seed, so only the schedule differs between them, and
// the guest's stdout and stderr are discarded.

#include "formats/Event.h"
#include "formats/Recording.h"
#include "tracer/StackUnwinder.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hermit::replay {

struct RaceAnalysisOptions {
    std::vector<std::string> argv;
    RunConfig failing; // chaos on, heuristic and seed of the failing schedule
    RunConfig passing; // chaos off (round-robin), or chaos with a passing seed
};

// Where a thread stands at a scheduling point.
struct ThreadPosition {
    std::optional<int> syscall; // the trapped syscall it stopped at; nullopt: none yet (thread start)
    std::vector<tracer::StackFrame> stack;
};

// One side of the racing pair: a thread's step from the deciding point to its next scheduling point.
struct RacingStep {
    int32_t tid = 0;
    ThreadPosition start;
    std::optional<ThreadPosition> end; // nullopt when the program ended during the step
    std::optional<ScheduleEvent::Reason> end_reason;
};

struct RaceAnalysisResult {
    int failing_status = 0;
    int passing_status = 0;
    uint64_t failing_decisions = 0; // scheduling decisions of the failing run
    uint64_t decision = 0;          // the deciding one, 0-based
    uint64_t event_index = 0;       // the event index of the ScheduleEvent that decision produced
    std::vector<int32_t> runnable;  // the threads it chose among
    RacingStep failing_first;       // the step the failing schedule runs at the decision
    RacingStep passing_first;       // the step whose running first makes the run pass
    bool swap_confirmed = false;    // passing_first's step then failing_first's passes
    unsigned runs = 0;              // guest runs made
};

// Throws hermit::Error: AnalyzeSeedPasses when both schedules exit alike, AnalyzeNotReproducible when a
// forced schedule does not replay, AnalyzeNoRace when no single decision decides.
RaceAnalysisResult analyze_race(const RaceAnalysisOptions& options);

} // namespace hermit::replay
