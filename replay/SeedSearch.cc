#include "SeedSearch.h"
#include "formats/JsonText.h"

#include "CapturedProcess.h"
#include "ShellWords.h"
#include "formats/Error.h"

#include <nlohmann/json.hpp>
#include <poll.h>
#include <time.h>

#include <algorithm>
#include <charconv>
#include <memory>

namespace hermit::replay {

namespace {

double monotonic_seconds() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9;
}

bool parse_seed(std::string_view text, uint64_t& value) {
    if (text.empty()) {
        return false;
    }
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    return error == std::errc() && end == text.data() + text.size();
}

// One seed's `hermit run` in flight.
struct SeedRun {
    uint64_t seed = 0;
    std::unique_ptr<CapturedProcess> process;
    double deadline = 0; // 0: none
    bool timed_out = false;
};

// Sleeps until one of the runs has output or exits, or until the nearest deadline (at most `limit`).
void wait_for_activity(const std::vector<SeedRun>& runs, double limit_seconds) {
    std::vector<pollfd> descriptors;
    double wait_seconds = limit_seconds;
    const double now = monotonic_seconds();
    for (const auto& run : runs) {
        for (int fd : run.process->poll_descriptors()) {
            descriptors.push_back({fd, POLLIN, 0});
        }
        if (run.deadline > 0) {
            wait_seconds = std::min(wait_seconds, std::max(0.0, run.deadline - now));
        }
    }
    poll(descriptors.data(), descriptors.size(), static_cast<int>(wait_seconds * 1000) + 1);
}

// Services every run, kills the ones past their deadline, and moves the finished ones out.
std::vector<SeedRun> collect_finished(std::vector<SeedRun>& runs) {
    std::vector<SeedRun> finished;
    const double now = monotonic_seconds();
    for (auto& run : runs) {
        run.process->service();
        if (!run.process->finished() && run.deadline > 0 && now >= run.deadline && !run.timed_out) {
            run.timed_out = true;
            run.process->kill();
        }
    }
    auto done = std::stable_partition(runs.begin(), runs.end(),
                                      [](const SeedRun& run) { return !run.process->finished(); });
    std::move(done, runs.end(), std::back_inserter(finished));
    runs.erase(done, runs.end());
    return finished;
}

} // namespace

SeedRange parse_seed_range(const std::string& text) {
    SeedRange range;
    const auto separator = text.find("..");
    bool valid = false;
    if (separator == std::string::npos) {
        valid = parse_seed(text, range.first);
        range.last = range.first;
    } else {
        valid = parse_seed(std::string_view(text).substr(0, separator), range.first) &&
                parse_seed(std::string_view(text).substr(separator + 2), range.last) &&
                range.first <= range.last;
    }
    // The full 2^64 range would overflow count(); nobody runs that many seeds.
    if (!valid || (range.first == 0 && range.last == UINT64_MAX)) {
        throw Error(ErrorCode::BadSeedRange, text);
    }
    return range;
}

SeedSearch::SeedSearch(SeedSearchOptions options) : options_(std::move(options)) {
    options_.jobs = std::max(options_.jobs, 1u);
}

std::vector<std::string> SeedSearch::run_arguments(std::optional<uint64_t> seed) const {
    std::vector<std::string> arguments{options_.hermit_binary, "run"};
    if (seed) {
        arguments.push_back("--chaos");
        arguments.push_back("--sched-heuristic=" + options_.heuristic);
        arguments.push_back("--seed=" + std::to_string(*seed));
        if (options_.heuristic == "pct") {
            arguments.push_back("--pct-depth=" + std::to_string(options_.pct_depth));
        }
    }
    arguments.push_back("--");
    arguments.insert(arguments.end(), options_.command.begin(), options_.command.end());
    return arguments;
}

std::string SeedSearch::reproduction_command(uint64_t seed) const {
    auto arguments = run_arguments(seed);
    arguments.front() = "hermit";
    return shell_join(arguments);
}

SeedSearchResult SeedSearch::run(const std::function<void(const SeedSearchProgress&)>& on_progress) {
    SeedSearchResult result;
    result.heuristic = options_.heuristic;
    const double timeout = static_cast<double>(options_.timeout_seconds);
    auto start = [&](std::optional<uint64_t> seed) {
        SeedRun run;
        run.seed = seed.value_or(0);
        run.process = std::make_unique<CapturedProcess>(run_arguments(seed));
        run.deadline = timeout > 0 ? monotonic_seconds() + timeout : 0;
        return run;
    };
    auto status_of = [](const SeedRun& run) { return run.timed_out ? -1 : run.process->exit_status(); };

    {
        std::vector<SeedRun> baseline;
        baseline.push_back(start(std::nullopt));
        std::vector<SeedRun> finished;
        while (finished.empty()) {
            wait_for_activity(baseline, 1.0);
            finished = collect_finished(baseline);
        }
        result.baseline_status = status_of(finished.front());
    }

    const double started = monotonic_seconds();
    SeedSearchProgress progress{0, options_.seeds.count(), 0, 0};
    std::optional<uint64_t> lowest_failure;
    std::vector<SeedRun> running;
    uint64_t next_seed = options_.seeds.first;
    bool launched_all = false;
    for (;;) {
        while (!launched_all && !lowest_failure && running.size() < options_.jobs) {
            running.push_back(start(next_seed));
            launched_all = next_seed == options_.seeds.last;
            ++next_seed;
        }
        if (running.empty()) {
            break;
        }
        wait_for_activity(running, 1.0);
        for (auto& run : collect_finished(running)) {
            const int status = status_of(run);
            ++progress.done;
            if (status != result.baseline_status) {
                ++progress.failures;
                result.failures.push_back(
                    {run.seed, status, run.process->stdout_text(), run.process->stderr_text()});
                if (options_.until_first) {
                    lowest_failure = std::min(lowest_failure.value_or(run.seed), run.seed);
                }
            }
        }
        if (lowest_failure) {
            // Seeds below the lowest failure all run to the end; higher ones no longer matter.
            std::erase_if(running, [&](const SeedRun& run) { return run.seed > *lowest_failure; });
        }
        progress.elapsed_seconds = monotonic_seconds() - started;
        if (on_progress) {
            on_progress(progress);
        }
    }
    std::sort(result.failures.begin(), result.failures.end(),
              [](const SeedOutcome& left, const SeedOutcome& right) { return left.seed < right.seed; });
    if (lowest_failure) {
        result.failures.resize(1);
        result.seeds_run = *lowest_failure - options_.seeds.first + 1;
    } else {
        result.seeds_run = progress.done;
    }
    return result;
}

std::string search_result_json(const SeedSearchResult& result, size_t stderr_limit) {
    nlohmann::ordered_json failures = nlohmann::ordered_json::array();
    for (const auto& failure : result.failures) {
        const std::string& text = failure.stderr_text;
        const size_t keep = std::min(text.size(), stderr_limit);
        failures.push_back({{"seed", failure.seed},
                            {"exit_status", failure.exit_status},
                            {"stdout", failure.stdout_text},
                            {"stderr", text.substr(text.size() - keep)}});
    }
    nlohmann::ordered_json document = {{"baseline_status", result.baseline_status},
                                       {"heuristic", result.heuristic},
                                       {"seeds_run", result.seeds_run},
                                       {"failures", failures}};
    // Guest output may be any bytes; replace what is not UTF-8 rather than fail.
    return json_text(document, 2) + "\n";
}

} // namespace hermit::replay
