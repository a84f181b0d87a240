#include "Commands.h"

#include "formats/Error.h"
#include "replay/KubernetesJob.h"
#include "replay/SeedSearch.h"
#include "tracer/ExecutableResolver.h"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <thread>

namespace hermit::cli {

namespace {

struct SearchArguments {
    std::string seeds;
    unsigned jobs = 0; // 0: one per CPU locally, 1 per pod in a Kubernetes Job
    bool until_first = false;
    std::string json_path;
    std::string heuristic = "random";
    uint32_t pct_depth = 3;
    unsigned timeout_seconds = 0;
    bool emit_k8s_job = false;
    uint64_t shards = 1;
    uint64_t parallelism = 0;
    std::string image = "hermit:latest";
    std::string job_name = "hermit-search";
    std::string results_claim;
    std::string output_path;
    std::vector<std::string> command;
};

std::string own_executable() {
    char path[PATH_MAX];
    ssize_t length = readlink("/proc/self/exe", path, sizeof path - 1);
    if (length <= 0) {
        throw Error(ErrorCode::SearchRunFailed, "/proc/self/exe", std::strerror(errno));
    }
    return std::string(path, static_cast<size_t>(length));
}

void write_file(const std::string& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << text;
    out.close();
    if (!out) {
        throw Error(ErrorCode::ExportFailed, path, std::strerror(errno));
    }
}

std::string duration_text(double seconds) {
    const auto whole = static_cast<long long>(seconds + 0.5);
    if (whole >= 3600) {
        return fmt::format("{}h{:02}m", whole / 3600, (whole % 3600) / 60);
    }
    if (whole >= 60) {
        return fmt::format("{}m{:02}s", whole / 60, whole % 60);
    }
    return fmt::format("{}s", whole);
}

// Progress on stderr: one line rewritten in place on a terminal; otherwise a plain line at every tenth of
// the range, so logs of long searches stay short.
class ProgressDisplay {
public:
    ProgressDisplay() : terminal_(isatty(STDERR_FILENO) != 0) {}

    void update(const replay::SeedSearchProgress& progress) {
        const double per_seed = progress.elapsed_seconds / static_cast<double>(progress.done);
        const std::string line = fmt::format(
            "hermit search: {}/{} seeds, {} failing, ETA {}", progress.done, progress.total,
            progress.failures, duration_text(per_seed * static_cast<double>(progress.total - progress.done)));
        if (terminal_) {
            std::fprintf(stderr, "\r%s\033[K", line.c_str());
            shown_ = true;
        } else if (progress.done * 10 / progress.total > last_tenth_) {
            last_tenth_ = progress.done * 10 / progress.total;
            std::fprintf(stderr, "%s\n", line.c_str());
        }
    }

    ~ProgressDisplay() {
        if (shown_) {
            std::fprintf(stderr, "\n");
        }
    }

private:
    bool terminal_;
    bool shown_ = false;
    uint64_t last_tenth_ = 0;
};

std::vector<std::string> pod_search_arguments(const SearchArguments& arguments) {
    std::vector<std::string> forwarded{"--sched-heuristic=" + arguments.heuristic};
    if (arguments.heuristic == "pct") {
        forwarded.push_back("--pct-depth=" + std::to_string(arguments.pct_depth));
    }
    forwarded.push_back("--jobs=" + std::to_string(arguments.jobs == 0 ? 1 : arguments.jobs));
    if (arguments.until_first) {
        forwarded.push_back("--until-first");
    }
    if (arguments.timeout_seconds > 0) {
        forwarded.push_back("--timeout=" + std::to_string(arguments.timeout_seconds));
    }
    return forwarded;
}

void emit_kubernetes_job(const SearchArguments& arguments, const replay::SeedRange& seeds) {
    replay::KubernetesJobOptions options;
    options.seeds = seeds;
    options.shards = arguments.shards;
    options.parallelism = arguments.parallelism;
    options.job_name = arguments.job_name;
    options.image = arguments.image;
    options.results_claim = arguments.results_claim;
    options.search_arguments = pod_search_arguments(arguments);
    options.command = arguments.command;
    const std::string manifest = replay::kubernetes_job_manifest(options);
    if (arguments.output_path.empty()) {
        std::fputs(manifest.c_str(), stdout);
    } else {
        write_file(arguments.output_path, manifest);
    }
}

void print_report(const replay::SeedSearch& search, const replay::SeedSearchResult& result,
                  const replay::SeedRange& seeds) {
    std::printf("baseline (no chaos): exit status %d\n", result.baseline_status);
    for (const auto& failure : result.failures) {
        if (failure.exit_status < 0) {
            std::printf("seed %llu: timed out\n", static_cast<unsigned long long>(failure.seed));
        } else {
            std::printf("seed %llu: exit status %d\n", static_cast<unsigned long long>(failure.seed),
                        failure.exit_status);
        }
        std::printf("  reproduce: %s\n", search.reproduction_command(failure.seed).c_str());
    }
    const std::string range = fmt::format("{}..{}", seeds.first, seeds.first + result.seeds_run - 1);
    if (result.failures.empty()) {
        std::printf("no failing seed in %s\n", range.c_str());
    } else {
        std::printf("%zu failing seed%s in %s (%s)\n", result.failures.size(),
                    result.failures.size() == 1 ? "" : "s", range.c_str(), result.heuristic.c_str());
    }
    std::fflush(stdout);
}

void run_search(const SearchArguments& arguments) {
    const replay::SeedRange seeds = replay::parse_seed_range(arguments.seeds);
    if (arguments.command.empty()) {
        throw Error(ErrorCode::MissingCommand);
    }
    if (arguments.emit_k8s_job) {
        emit_kubernetes_job(arguments, seeds);
        return;
    }
    // A program that cannot start fails every seed alike: say so instead of "no failing seed".
    const char* path = std::getenv("PATH");
    tracer::resolve_executable(arguments.command.front(), path != nullptr ? path : "/usr/bin:/bin");
    replay::SeedSearchOptions options;
    options.seeds = seeds;
    options.jobs = arguments.jobs > 0 ? arguments.jobs : std::max(1u, std::thread::hardware_concurrency());
    options.until_first = arguments.until_first;
    options.heuristic = arguments.heuristic;
    options.pct_depth = arguments.pct_depth;
    options.timeout_seconds = arguments.timeout_seconds;
    options.hermit_binary = own_executable();
    options.command = arguments.command;
    replay::SeedSearch search(options);
    replay::SeedSearchResult result;
    {
        ProgressDisplay display;
        result =
            search.run([&display](const replay::SeedSearchProgress& progress) { display.update(progress); });
    }
    print_report(search, result, seeds);
    if (!arguments.json_path.empty()) {
        write_file(arguments.json_path, replay::search_result_json(result));
    }
}

} // namespace

void add_search_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<SearchArguments>();
    auto* command = app.add_subcommand(
        "search",
        "Run a program under --chaos for many seeds and list the seeds whose exit status differs from "
        "a normal run: hermit search --seeds=1..1000 -- cmd args...");
    command->add_option("--seeds", arguments->seeds, "Seeds to try: N or A..B")->required();
    command->add_option("-j,--jobs", arguments->jobs, "Runs at a time (default: one per CPU)");
    command->add_flag("--until-first", arguments->until_first, "Stop at the lowest failing seed");
    command->add_option("--json", arguments->json_path, "Also write the results as JSON to PATH");
    command->add_option("--sched-heuristic", arguments->heuristic, "Chaos schedule: random or pct")
        ->check(CLI::IsMember({"random", "pct"}));
    command->add_option("--pct-depth", arguments->pct_depth,
                        "PCT bug depth (number of priority change points + 1)");
    command->add_option("--timeout", arguments->timeout_seconds,
                        "Kill a run after SECONDS and count it as failing (default: no limit)");
    CLI::Option* k8s = command->add_flag(
        "--emit-k8s-job", arguments->emit_k8s_job,
        "Print a Kubernetes Indexed Job that runs the search in shards instead of running it");
    command
        ->add_option("--shards", arguments->shards, "With --emit-k8s-job: number of pods (Job completions)")
        ->needs(k8s);
    command
        ->add_option("--parallelism", arguments->parallelism,
                     "With --emit-k8s-job: pods at a time (default: min(shards, 10))")
        ->needs(k8s);
    command
        ->add_option("--image", arguments->image,
                     "With --emit-k8s-job: container image with hermit and the program")
        ->needs(k8s);
    command->add_option("--job-name", arguments->job_name, "With --emit-k8s-job: the Job's name")->needs(k8s);
    command
        ->add_option("--results-claim", arguments->results_claim,
                     "With --emit-k8s-job: PersistentVolumeClaim to mount at /results (default: emptyDir)")
        ->needs(k8s);
    command
        ->add_option("-o,--output", arguments->output_path, "With --emit-k8s-job: write the manifest to PATH")
        ->needs(k8s);
    command->add_option("command", arguments->command, "The guest command, after --");

    command->callback([&context, arguments] {
        apply_global_options(context.global);
        run_search(*arguments);
        context.exit_status = 0;
    });
}

} // namespace hermit::cli
