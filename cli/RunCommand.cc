#include "Commands.h"
#include "RunConfigOptions.h"

#include "formats/Error.h"
#include "formats/Recording.h"
#include "replay/DebugServe.h"
#include "replay/Verify.h"
#include "tracer/ExecutableResolver.h"
#include "tracer/GuestLauncher.h"
#include "tracer/GuestRun.h"
#include "tracer/Session.h"
#include "tracer/StraceInterceptor.h"

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
    RunConfigArguments run;
    // Verify
    bool verify = false;
    std::string verify_json;
    // Tracing modes
    bool strace_only = false;
    std::string strace_file;
    bool namespace_only = false;
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

// --namespace-only: fresh namespaces, no ptrace, no seccomp.
int run_namespace_only(const RunArguments& arguments) {
    tracer::LaunchOptions launch;
    launch.argv = arguments.command;
    launch.env = hermit_environment();
    launch.executable = tracer::resolve_executable(arguments.command[0], tracer::search_path_of(launch.env));
    launch.namespaces = true;
    return tracer::run_untraced(launch);
}

// --strace-only: every syscall printed, nothing virtualized, threads run freely.
int run_strace_only(const RunArguments& arguments) {
    tracer::SessionOptions options;
    options.argv = arguments.command;
    options.env = hermit_environment();
    options.namespaces = !arguments.run.no_namespaces;
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
    tracer::GuestRunSpec spec{arguments.command, hermit_environment(), {}, arguments.run.config()};
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
    add_run_config_options(*command, arguments->run);
    // Modes exclude each other; an option of one mode needs that mode.
    CLI::Option* verify = command->add_flag("--verify", arguments->verify,
                                            "Run twice and check both runs produce the same events");
    command
        ->add_option("--verify-json", arguments->verify_json, "Write the --verify comparison as JSON to PATH")
        ->needs(verify);
    CLI::Option* strace = command
                              ->add_flag("--strace-only", arguments->strace_only,
                                         "Only print the guest's syscalls, like strace -f")
                              ->excludes(verify);
    command
        ->add_option("--strace-file", arguments->strace_file, "With --strace-only: write the trace to PATH")
        ->needs(strace);
    CLI::Option* gdbserver =
        command
            ->add_option(
                "--gdbserver-port", arguments->gdbserver_port,
                "Debug the run with gdb (forwards only) through a gdbserver on 127.0.0.1:PORT (0: any)")
            ->check(CLI::Range(0, 65535))
            ->excludes(verify)
            ->excludes(strace);
    command
        ->add_flag("--serve-only", arguments->serve_only,
                   "With --gdbserver-port: wait for a debugger instead of launching gdb")
        ->needs(gdbserver);
    command
        ->add_flag("--namespace-only", arguments->namespace_only,
                   "Only isolate the guest in namespaces; no tracing")
        ->excludes(verify)
        ->excludes(strace)
        ->excludes(gdbserver)
        ->excludes("--no-namespaces")
        ->excludes("--chaos");
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
                replay::verify_run({arguments->command, arguments->run.config(), arguments->verify_json});
        } else if (arguments->strace_only) {
            context.exit_status = run_strace_only(*arguments);
        } else {
            context.exit_status = run_deterministic(*arguments);
        }
    });
}

} // namespace hermit::cli
