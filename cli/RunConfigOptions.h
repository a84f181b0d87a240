#pragma once
// The options that make a RunConfig (determinism and chaos), declared once for the commands that run a
// guest: `hermit run` and `hermit record start`, so that a recording can be made with any setting a run
// takes (and its metadata stores).

#include "formats/Recording.h"

#include <CLI/CLI.hpp>

#include <cstdint>
#include <string>

namespace hermit::cli {

struct RunConfigArguments {
    bool strict = false;
    uint64_t seed = 0;
    std::string epoch;
    bool chaos = false;
    std::string sched_heuristic; // empty: random under --chaos, else none (round-robin)
    uint32_t pct_depth = 3;
    std::string preemption_timeout = "disabled";
    bool no_namespaces = false;

    // Throws hermit::Error E002 or E022 for a value that does not parse.
    RunConfig config() const;
};

// Adds the options to `command`; returns the --chaos flag, which other options may need.
CLI::Option* add_run_config_options(CLI::App& command, RunConfigArguments& arguments);

} // namespace hermit::cli
