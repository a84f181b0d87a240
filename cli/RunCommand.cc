#include "Commands.h"

#include "formats/Error.h"
#include "formats/Recording.h"
#include "replay/DebugServe.h"
#include "replay/Verify.h"
#include "tracer/ExecutableResolver.h"
#include "tracer/GuestLauncher.h"
#include "tracer/GuestRun.h"
#include "tracer/Session.h"
#include "tracer/StraceInterceptor.h"
#include "tracer/virt/Epoch.h"

#include <unistd.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

extern char** environ;

namespace hermit::cli {

namespace {

struct RunArguments {
    std::vector<std::string> command;
    // Determinism
    bool strict = false;
    uint64_t seed = 0;
    std::string epoch;
    // Chaos
    bool chaos = false;
    std::string sched_heuristic = "none";
    uint32_t pct_depth = 3;
    std::string preemption_timeout = "disabled";
    // Verify
    bool verify = false;
    std::string verify_json;
    // Tracing modes
    bool strace_only = false;
    std::string strace_file;
    bool namespace_only = false;
    bool no_namespaces = false;
    // Debugger
    std::optional<int> gdbserver_port;
    bool serve_only = false;
};

std::vector<std::string> hermit_environment() {
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        env.emplace_back(*entry);
    }
    return env;
}

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

RunConfig run_config(const RunArguments& arguments) {
    RunConfig config;
    config.seed = arguments.seed;
    config.epoch_ns = arguments.epoch.empty() ? 0 : tracer::virt::parse_epoch(arguments.epoch);
    config.chaos = arguments.chaos;
    config.sched_heuristic = arguments.sched_heuristic;
    config.pct_depth = arguments.pct_depth;
    config.preemption_timeout = parse_preemption_timeout(arguments.preemption_timeout);
    config.strict = arguments.strict;
    config.namespaces = !arguments.no_namespaces;
    return config;
}

// --namespace-only: fresh namespaces, no ptrace, no seccomp.
int run_namespace_only(const RunArguments& arguments) {
    tracer::LaunchOptions launch;
    launch.argv = arguments.command;
    launch.env = hermit_environment();
    launch.executable = tracer::resolve_executable(arguments.command[0], tracer::search_path_of(launch.env));
    launch.namespaces = !arguments.no_namespaces;
    return tracer::run_untraced(launch);
}

// --strace-only: every syscall printed, nothing virtualized, threads run freely.
int run_strace_only(const RunArguments& arguments) {
    tracer::SessionOptions options;
    options.argv = arguments.command;
    options.env = hermit_environment();
    options.namespaces = !arguments.no_namespaces;
    options.deterministic_scheduling = false;
    options.disable_aslr = false;
    std::unique_ptr<tracer::StraceInterceptor> strace =
        arguments.strace_file.empty() ? std::make_unique<tracer::StraceInterceptor>(stderr)
                                      : std::make_unique<tracer::StraceInterceptor>(arguments.strace_file);
    tracer::Session session(options);
    session.add_interceptor(strace.get());
    session.add_event_sink(strace.get()); // signal and exit lines
    return session.run();
}

int run_deterministic(const RunArguments& arguments) {
    tracer::GuestRunSpec spec{arguments.command, hermit_environment(), {}, run_config(arguments)};
    if (arguments.gdbserver_port) {
        return replay::debug_run(spec, arguments.serve_only, *arguments.gdbserver_port);
    }
    tracer::GuestRun run(spec);
    return run.run();
}

} // namespace

void add_run_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<RunArguments>();
    auto* command =
        app.add_subcommand("run", "Run a program deterministically: hermit run [options] -- cmd args...");
    command->add_flag("--strict", arguments->strict,
                      "Fail instead of warning when a nondeterminism source cannot be closed");
    command->add_option("--seed", arguments->seed,
                        "Seed of every pseudo-random stream (guest data, scheduler)");
    command->add_option("--epoch", arguments->epoch,
                        "Start of the guest's wall clock: seconds since 1970 or YYYY-MM-DDTHH:MM:SSZ");
    command->add_flag("--chaos", arguments->chaos, "Explore thread interleavings with a seeded schedule");
    command
        ->add_option("--sched-heuristic", arguments->sched_heuristic, "Chaos schedule: none, random or pct")
        ->check(CLI::IsMember({"none", "random", "pct"}));
    command->add_option("--pct-depth", arguments->pct_depth,
                        "PCT bug depth (number of priority change points + 1)");
    command->add_option("--preemption-timeout", arguments->preemption_timeout,
                        "Preempt after N retired branches, or 'disabled' (needs a PMU)");
    command->add_flag("--verify", arguments->verify, "Run twice and check both runs produce the same events");
    command->add_option("--verify-json", arguments->verify_json,
                        "Write the --verify comparison as JSON to PATH");
    command->add_flag("--strace-only", arguments->strace_only,
                      "Only print the guest's syscalls, like strace -f");
    command->add_option("--strace-file", arguments->strace_file,
                        "With --strace-only: write the trace to PATH");
    command->add_flag("--namespace-only", arguments->namespace_only,
                      "Only isolate the guest in namespaces; no tracing");
    command->add_flag("--no-namespaces", arguments->no_namespaces,
                      "Run the guest in hermit's own namespaces");
    command
        ->add_option("--gdbserver-port", arguments->gdbserver_port,
                     "Debug the run with gdb (forwards only) through a gdbserver on 127.0.0.1:PORT (0: any)")
        ->check(CLI::Range(0, 65535));
    command->add_flag("--serve-only", arguments->serve_only,
                      "With --gdbserver-port: wait for a debugger instead of launching gdb");
    command->add_option("command", arguments->command, "The guest command, after --");

    command->callback([&context, arguments] {
        apply_global_options(context.global);
        if (arguments->command.empty()) {
            throw Error(ErrorCode::MissingCommand);
        }
        if (arguments->namespace_only) {
            context.exit_status = run_namespace_only(*arguments);
        } else if (arguments->verify) {
            context.exit_status =
                replay::verify_run({arguments->command, run_config(*arguments), arguments->verify_json});
        } else if (arguments->strace_only) {
            context.exit_status = run_strace_only(*arguments);
        } else {
            context.exit_status = run_deterministic(*arguments);
        }
    });
}

} // namespace hermit::cli
