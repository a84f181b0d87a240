#include "RunConfigOptions.h"

#include "formats/Error.h"
#include "tracer/virt/Epoch.h"

namespace hermit::cli {

namespace {

int64_t parse_preemption_timeout(const std::string& text) {
    if (text == "disabled") {
        return -1;
    }
    try {
        size_t used = 0;
        int64_t value = std::stoll(text, &used);
        if (used == text.size() && value >= 0) {
            return value;
        }
    } catch (const std::exception&) {
    }
    throw Error(ErrorCode::UsageError,
                "--preemption-timeout expects a number or 'disabled', got '" + text + "'");
}

} // namespace

RunConfig RunConfigArguments::config() const {
    RunConfig config;
    config.seed = seed;
    config.epoch_ns = epoch.empty() ? 0 : tracer::virt::parse_epoch(epoch);
    config.chaos = chaos;
    // What the run really uses, which the recording's metadata then says.
    config.sched_heuristic = !sched_heuristic.empty() ? sched_heuristic : chaos ? "random" : "none";
    config.pct_depth = pct_depth;
    config.preemption_timeout = parse_preemption_timeout(preemption_timeout);
    config.strict = strict;
    config.namespaces = !no_namespaces;
    return config;
}

CLI::Option* add_run_config_options(CLI::App& command, RunConfigArguments& arguments) {
    command.add_flag("--strict", arguments.strict,
                     "Fail instead of warning when a nondeterminism source cannot be closed");
    command.add_option("--seed", arguments.seed,
                       "Seed of every pseudo-random stream (guest data, scheduler)");
    command.add_option("--epoch", arguments.epoch,
                       "Start of the guest's wall clock: seconds since 1970 or YYYY-MM-DDTHH:MM:SSZ");
    CLI::Option* chaos =
        command.add_flag("--chaos", arguments.chaos, "Explore thread interleavings with a seeded schedule");
    command
        .add_option("--sched-heuristic", arguments.sched_heuristic,
                    "With --chaos: random (the default), pct, or none (round-robin)")
        ->check(CLI::IsMember({"none", "random", "pct"}))
        ->needs(chaos);
    command
        .add_option("--pct-depth", arguments.pct_depth,
                    "PCT bug depth (number of priority change points + 1)")
        ->needs(chaos);
    command.add_option("--preemption-timeout", arguments.preemption_timeout,
                       "Preempt after N retired branches, or 'disabled' (needs a PMU)");
    command.add_flag("--no-namespaces", arguments.no_namespaces, "Run the guest in hermit's own namespaces");
    return chaos;
}

} // namespace hermit::cli
