#pragma once
// SeedSearch: `hermit search`. Runs the guest once without chaos for the baseline exit status, then once
// per seed under --chaos, `jobs` runs at a time, each a child `hermit run` whose output is kept in memory
// only when its exit status differs from the baseline (a failing seed). Every run is deterministic, so a
// failing seed reproduces with the printed `hermit run --chaos ... --seed=S` command.

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace hermit::replay {

// An inclusive range of seeds.
struct SeedRange {
    uint64_t first = 1;
    uint64_t last = 1;
    uint64_t count() const { return last - first + 1; }
    bool operator==(const SeedRange&) const = default;
};

// "N" (the one seed N) or "A..B" with A <= B, decimal. Throws hermit::Error E070 otherwise.
SeedRange parse_seed_range(const std::string& text);

struct SeedSearchOptions {
    SeedRange seeds;
    unsigned jobs = 1;
    bool until_first = false;         // stop at the lowest failing seed
    std::string heuristic = "random"; // random or pct
    uint32_t pct_depth = 3;
    unsigned timeout_seconds = 0;     // per run; 0: no limit
    std::string hermit_binary;        // the `hermit` executable the runs use
    std::vector<std::string> command; // the guest command line
};

struct SeedOutcome {
    uint64_t seed = 0;
    int exit_status = 0; // -1 when the run exceeded the timeout and was killed
    std::string stdout_text;
    std::string stderr_text;
};

struct SeedSearchResult {
    int baseline_status = 0;
    std::string heuristic;
    uint64_t seeds_run = 0;
    std::vector<SeedOutcome> failures; // ascending by seed
};

struct SeedSearchProgress {
    uint64_t done = 0;
    uint64_t total = 0;
    uint64_t failures = 0;
    double elapsed_seconds = 0;
};

class SeedSearch {
public:
    explicit SeedSearch(SeedSearchOptions options);

    // The `hermit run` argument vector (argv[0] included) for a seed, or for the baseline without one.
    std::vector<std::string> run_arguments(std::optional<uint64_t> seed) const;
    // What a user pastes to reproduce a seed: "hermit run --chaos --sched-heuristic=random --seed=17 -- ./a".
    std::string reproduction_command(uint64_t seed) const;

    // Runs the baseline and the seeds; `on_progress` is called after each finished seed run.
    // With until_first, only seeds up to the lowest failing one count: runs of higher seeds still in
    // flight are killed, so the result does not depend on timing or on `jobs`.
    SeedSearchResult run(const std::function<void(const SeedSearchProgress&)>& on_progress = {});

private:
    SeedSearchOptions options_;
};

// {baseline_status, heuristic, seeds_run, failures: [{seed, exit_status, stdout, stderr}]}; stderr keeps
// its last `stderr_limit` bytes.
std::string search_result_json(const SeedSearchResult& result, size_t stderr_limit = 4096);

} // namespace hermit::replay
