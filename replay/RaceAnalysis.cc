#include "RaceAnalysis.h"

#include "ForcedSchedulePolicy.h"
#include "GuestEnvironment.h"
#include "ThreadStopTracker.h"
#include "formats/Error.h"
#include "tracer/GuestRun.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <map>

namespace hermit::replay {

namespace {

// Points the guest's stdin, stdout and stderr (inherited from hermit when it is forked) at /dev/null for
// the duration of one run, so that the many experiment runs do not print the guest's output.
class DiscardedGuestOutput {
public:
    DiscardedGuestOutput() {
        std::fflush(stdout);
        std::fflush(stderr);
        const int null = open("/dev/null", O_RDWR | O_CLOEXEC);
        for (int fd = 0; fd <= 2; ++fd) {
            saved_[fd] = dup(fd);
            if (null >= 0) {
                dup2(null, fd);
            }
        }
        if (null >= 0) {
            close(null);
        }
    }
    ~DiscardedGuestOutput() {
        std::fflush(stdout);
        std::fflush(stderr);
        for (int fd = 0; fd <= 2; ++fd) {
            if (saved_[fd] >= 0) {
                dup2(saved_[fd], fd);
                close(saved_[fd]);
            }
        }
    }
    DiscardedGuestOutput(const DiscardedGuestOutput&) = delete;
    DiscardedGuestOutput& operator=(const DiscardedGuestOutput&) = delete;

private:
    int saved_[3] = {-1, -1, -1};
};

// The frames up to the first one outside every mapped file: past it the unwinder is reading data that is
// not a stack (a just-cloned thread has no caller frames yet).
std::vector<tracer::StackFrame> code_frames(std::vector<tracer::StackFrame> frames) {
    auto outside = std::find_if(frames.begin(), frames.end(),
                                [](const tracer::StackFrame& frame) { return frame.location.empty(); });
    frames.erase(outside, frames.end());
    return frames;
}

// What one experiment run forces and which thread positions it records: at decision number N, the
// positions of the listed threads.
struct RunPlan {
    std::vector<int32_t> forced;
    std::map<uint64_t, std::vector<int32_t>> captures;
};

struct RunOutcome {
    int exit_status = 0;
    std::vector<ScheduleDecision> decisions;
    std::optional<uint64_t> first_unfollowed;
    std::map<std::pair<uint64_t, int32_t>, ThreadPosition> positions; // (decision, tid)
};

class Experiments {
public:
    explicit Experiments(const RaceAnalysisOptions& options) : options_(options) {}

    // A run whose fallback is the failing policy (`failing`) or the passing one.
    RunOutcome run(const RunPlan& plan, bool failing_policy) {
        ++runs_;
        const RunConfig& policy_config = failing_policy ? options_.failing : options_.passing;
        RunOutcome outcome;
        ThreadStopTracker tracker;
        auto policy =
            std::make_unique<ForcedSchedulePolicy>(plan.forced, tracer::schedule_policy(policy_config));
        policy->set_observer([&](uint64_t decision, const ScheduleDecision&) {
            auto wanted = plan.captures.find(decision);
            if (wanted == plan.captures.end()) {
                return;
            }
            for (int32_t tid : wanted->second) {
                ThreadPosition position;
                position.syscall = tracker.last_syscall(tid);
                if (pid_t host_tid = tracker.host_tid(tid); host_tid != 0) {
                    position.stack = code_frames(tracer::unwind_stack(host_tid));
                }
                outcome.positions[{decision, tid}] = std::move(position);
            }
        });
        ForcedSchedulePolicy* forced = policy.get();
        // Host warnings (no CPUID faulting, no PMU) are the same in every run: the first run shows them.
        const spdlog::level::level_enum level = spdlog::get_level();
        if (runs_ > 1) {
            spdlog::set_level(std::max(level, spdlog::level::err));
        }
        {
            tracer::GuestRun guest(
                tracer::GuestRunSpec{options_.argv, current_environment(), {}, options_.failing});
            guest.set_schedule_policy(std::move(policy));
            guest.add_interceptor(&tracker);
            DiscardedGuestOutput discarded;
            outcome.exit_status = guest.run();
            outcome.decisions = forced->decisions();
            outcome.first_unfollowed = forced->first_unfollowed();
        }
        spdlog::set_level(level);
        spdlog::debug("analyze: run {} forcing {} choices: exit status {}, {} decisions", runs_,
                      plan.forced.size(), outcome.exit_status, outcome.decisions.size());
        return outcome;
    }

    unsigned runs() const { return runs_; }

private:
    const RaceAnalysisOptions& options_;
    unsigned runs_ = 0;
};

std::vector<int32_t> choices(const std::vector<ScheduleDecision>& decisions, size_t count) {
    std::vector<int32_t> result;
    for (size_t index = 0; index < count && index < decisions.size(); ++index) {
        result.push_back(decisions[index].chosen);
    }
    return result;
}

void require_followed(const RunOutcome& outcome, const std::string& what) {
    if (outcome.first_unfollowed) {
        throw Error(ErrorCode::AnalyzeNotReproducible, what, *outcome.first_unfollowed);
    }
}

// The thread's step that starts at `decision`: where it stands there and where it stands at the next
// decision, when it is the one giving up the token then.
RacingStep racing_step(const RunOutcome& outcome, int32_t tid, uint64_t decision) {
    RacingStep step;
    step.tid = tid;
    if (auto found = outcome.positions.find({decision, tid}); found != outcome.positions.end()) {
        step.start = found->second;
    }
    if (decision + 1 < outcome.decisions.size() && outcome.decisions[decision + 1].current_tid == tid) {
        step.end_reason = outcome.decisions[decision + 1].reason;
        if (auto found = outcome.positions.find({decision + 1, tid}); found != outcome.positions.end()) {
            step.end = found->second;
        }
    }
    return step;
}

} // namespace

RaceAnalysisResult analyze_race(const RaceAnalysisOptions& options) {
    Experiments experiments(options);
    RaceAnalysisResult result;

    const RunOutcome failing = experiments.run({}, true);
    const RunOutcome passing = experiments.run({}, false);
    result.failing_status = failing.exit_status;
    result.passing_status = passing.exit_status;
    if (failing.exit_status == passing.exit_status) {
        throw Error(ErrorCode::AnalyzeSeedPasses, options.failing.seed, failing.exit_status);
    }
    const auto& failing_decisions = failing.decisions;
    result.failing_decisions = failing_decisions.size();
    auto fails = [&](const RunOutcome& outcome) { return outcome.exit_status != result.passing_status; };

    // Forcing every choice must give the failing run back, or bisecting over prefixes means nothing.
    const RunOutcome replayed =
        experiments.run({choices(failing_decisions, failing_decisions.size()), {}}, false);
    require_followed(replayed, "the failing schedule");
    if (!fails(replayed)) {
        throw Error(ErrorCode::AnalyzeNotReproducible, "the failing schedule", failing_decisions.size());
    }

    // Invariant: forcing `passes_with` choices passes, forcing `fails_with` choices fails.
    size_t passes_with = 0;
    size_t fails_with = failing_decisions.size();
    if (fails_with == 0) {
        throw Error(ErrorCode::AnalyzeNoRace, "the failing run made no scheduling decision");
    }
    RunOutcome last_passing = passing;
    while (fails_with - passes_with > 1) {
        const size_t middle = passes_with + (fails_with - passes_with) / 2;
        RunOutcome outcome = experiments.run({choices(failing_decisions, middle), {}}, false);
        require_followed(outcome, "a prefix of the failing schedule");
        if (fails(outcome)) {
            fails_with = middle;
        } else {
            passes_with = middle;
            last_passing = std::move(outcome);
        }
    }
    const uint64_t decision = passes_with;
    const ScheduleDecision& deciding = failing_decisions[decision];
    result.decision = decision;
    result.event_index = deciding.event_index;
    result.runnable = deciding.runnable;
    const int32_t failing_tid = deciding.chosen;
    if (last_passing.decisions.size() <= decision || last_passing.decisions[decision].chosen == failing_tid) {
        throw Error(ErrorCode::AnalyzeNoRace,
                    "the passing and failing runs choose alike at the deciding point");
    }

    // The partner: a thread whose single step, run just before the failing thread's, makes the run pass.
    // The passing policy's own choice is the first candidate.
    std::vector<int32_t> candidates{last_passing.decisions[decision].chosen};
    for (int32_t tid : deciding.runnable) {
        if (tid != failing_tid && tid != candidates.front()) {
            candidates.push_back(tid);
        }
    }
    std::optional<RunOutcome> swapped;
    int32_t partner = candidates.front();
    for (int32_t candidate : candidates) {
        RunPlan plan{choices(failing_decisions, decision),
                     {{decision, {candidate}}, {decision + 1, {candidate}}}};
        plan.forced.push_back(candidate);
        plan.forced.push_back(failing_tid);
        RunOutcome outcome = experiments.run(plan, false);
        if (!outcome.first_unfollowed && !fails(outcome)) {
            partner = candidate;
            swapped = std::move(outcome);
            result.swap_confirmed = true;
            break;
        }
    }
    if (!swapped) {
        // No single step of another thread fixes it; report the passing policy's choice, unconfirmed.
        RunPlan plan{choices(failing_decisions, decision + 1),
                     {{decision, {partner}}, {decision + 1, {partner}}}};
        plan.forced.back() = partner;
        swapped = experiments.run(plan, false);
    }

    RunPlan failing_order{choices(failing_decisions, decision + 1),
                          {{decision, {failing_tid}}, {decision + 1, {failing_tid}}}};
    const RunOutcome stacks = experiments.run(failing_order, false);
    require_followed(stacks, "the failing schedule");
    result.failing_first = racing_step(stacks, failing_tid, decision);
    result.passing_first = racing_step(*swapped, partner, decision);
    result.runs = experiments.runs();
    return result;
}

} // namespace hermit::replay
