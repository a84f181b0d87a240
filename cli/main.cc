#include "Commands.h"

#include "formats/Error.h"
#include "formats/Logging.h"

#include <cstdio>

namespace hermit::cli {

void apply_global_options(const GlobalOptions& global) {
    if (global.backend != "ptrace") {
        throw Error(ErrorCode::BackendUnavailable, global.backend);
    }
    log_to_stderr(global.log_level);
}

namespace {

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
        std::fprintf(stderr, "%s\n", Error(ErrorCode::UsageError, parse_error.what()).what());
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
