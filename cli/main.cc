#include "Commands.h"

#include "formats/Error.h"
#include "formats/Logging.h"

#include <cstdio>
#include <string>
#include <vector>

namespace hermit::cli {

void apply_global_options(const GlobalOptions& global) {
    if (global.backend != "ptrace") {
        throw Error(ErrorCode::BackendUnavailable, global.backend);
    }
    log_to_stderr(global.log_level);
}

namespace {

// CLI11's words for a command line it cannot parse, except where they mislead: a word that names no
// command reads "A subcommand is required".
std::string usage_problem(const CLI::App& app, const CLI::ParseError& error) {
    if (app.get_subcommands().empty() && !app.remaining().empty()) {
        std::string commands;
        for (const CLI::App* command : app.get_subcommands({})) {
            commands += (commands.empty() ? "" : ", ") + command->get_name();
        }
        return "unknown command '" + app.remaining().front() + "' (the commands are " + commands + ")";
    }
    // An unknown option: CLI11 lists it among every word it did not take (falling through to the parent
    // commands), the guest's command included.
    std::vector<std::string> untaken = app.remaining();
    const CLI::App* command = &app;
    std::string path = "hermit";
    while (!command->get_subcommands().empty()) {
        command = command->get_subcommands().front();
        path += " " + command->get_name();
        const std::vector<std::string> words = command->remaining();
        untaken.insert(untaken.end(), words.begin(), words.end());
    }
    for (const std::string& word : untaken) {
        if (word.size() > 1 && word.front() == '-' && word != "--") {
            return "unknown option '" + word + "' for '" + path + "' (see '" + path + " --help')";
        }
    }
    return error.what();
}

int run_main(int argc, char** argv) {
    CommandContext context;
    CLI::App app{"hermit: deterministic execution, record/replay and debugging for Linux programs", "hermit"};
    app.set_version_flag("--version", std::string("hermit ") + HERMIT_VERSION);
    app.require_subcommand(1);
    app.fallthrough();
    app.add_option("--log", context.global.log_level, "Diagnostic log level on stderr")
        ->check(CLI::IsMember({"error", "warn", "info", "debug", "trace"}));
    app.add_option("--backend", context.global.backend, "Execution backend (only ptrace is built)")
        ->check(CLI::IsMember({"ptrace", "dbi", "kvm"}));

    add_run_command(app, context);
    add_record_command(app, context);
    add_replay_command(app, context);
    add_search_command(app, context);
    add_analyze_command(app, context);
    add_gui_command(app, context);
    add_diff_command(app, context);
    add_export_command(app, context);

    try {
        app.parse(argc, argv);
    } catch (const CLI::Success& success) {
        return app.exit(success);
    } catch (const CLI::ParseError& parse_error) {
        std::fprintf(stderr, "%s\n", Error(ErrorCode::UsageError, usage_problem(app, parse_error)).what());
        std::fprintf(stderr, "Run 'hermit --help' for usage.\n");
        return error_info(ErrorCode::UsageError).exit_status;
    }
    return context.exit_status;
}

} // namespace
} // namespace hermit::cli

int main(int argc, char** argv) {
    try {
        return hermit::cli::run_main(argc, argv);
    } catch (const hermit::Error& error) {
        return hermit::report(error);
    }
}
