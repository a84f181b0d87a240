#include "Commands.h"

#include "formats/Error.h"
#include "replay/RaceAnalysis.h"
#include "replay/RaceReport.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

namespace hermit::cli {

namespace {

struct AnalyzeArguments {
    std::optional<uint64_t> fail_seed;
    std::optional<uint64_t> pass_seed;
    std::string heuristic = "random";
    uint32_t pct_depth = 3;
    std::string json_path;
    std::vector<std::string> command;
};

RunConfig chaos_config(const AnalyzeArguments& arguments, uint64_t seed) {
    RunConfig config;
    config.chaos = true;
    config.sched_heuristic = arguments.heuristic;
    config.pct_depth = arguments.pct_depth;
    config.seed = seed;
    return config;
}

std::string chaos_label(const AnalyzeArguments& arguments, uint64_t seed) {
    return arguments.heuristic == "pct" ? fmt::format("pct seed {}, depth {}", seed, arguments.pct_depth)
                                        : fmt::format("random seed {}", seed);
}

void run_analyze(const AnalyzeArguments& arguments) {
    if (!arguments.fail_seed) {
        throw Error(ErrorCode::AnalyzeNoFailingSeed);
    }
    if (arguments.command.empty()) {
        throw Error(ErrorCode::MissingCommand);
    }
    replay::RaceAnalysisOptions options;
    options.argv = arguments.command;
    options.failing = chaos_config(arguments, *arguments.fail_seed);
    replay::RaceReportLabels labels{chaos_label(arguments, *arguments.fail_seed), "round-robin, no chaos"};
    if (arguments.pass_seed) {
        options.passing = chaos_config(arguments, *arguments.pass_seed);
        labels.passing = chaos_label(arguments, *arguments.pass_seed);
    }
    const replay::RaceAnalysisResult result = replay::analyze_race(options);
    std::fputs(replay::race_report_text(result, labels).c_str(), stdout);
    std::fflush(stdout);
    if (!arguments.json_path.empty()) {
        std::ofstream out(arguments.json_path, std::ios::binary | std::ios::trunc);
        out << replay::race_report_json(result, labels);
        out.close();
        if (!out) {
            throw Error(ErrorCode::ExportFailed, arguments.json_path, std::strerror(errno));
        }
    }
}

} // namespace

void add_analyze_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<AnalyzeArguments>();
    auto* command = app.add_subcommand(
        "analyze",
        "Find the racing pair of a failing chaos seed: the scheduling decision whose order decides pass vs "
        "fail, with both threads' stacks: hermit analyze --fail-seed=N -- cmd args...");
    command->add_option("--fail-seed", arguments->fail_seed, "A failing chaos seed (from hermit search)");
    command->add_option("--pass-seed", arguments->pass_seed,
                        "A passing chaos seed to compare with (default: the run without chaos)");
    command
        ->add_option("--sched-heuristic", arguments->heuristic, "Chaos schedule of the seeds: random or pct")
        ->check(CLI::IsMember({"random", "pct"}));
    command->add_option("--pct-depth", arguments->pct_depth,
                        "PCT bug depth (number of priority change points + 1)");
    command->add_option("--json", arguments->json_path, "Also write the result as JSON to PATH");
    command->add_option("command", arguments->command, "The guest command, after --");

    command->callback([&context, arguments] {
        apply_global_options(context.global);
        run_analyze(*arguments);
        context.exit_status = 0;
    });
}

} // namespace hermit::cli
