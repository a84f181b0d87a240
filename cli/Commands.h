#pragma once
// Each subcommand lives in its own file and registers itself on the CLI11 app. A command's callback
// stores the process exit status in CommandContext::exit_status; hermit::Error escapes to main().

#include <CLI/CLI.hpp>

#include <string>

namespace hermit::cli {

struct GlobalOptions {
    std::string log_level = "warn";
    std::string backend = "ptrace";
};

struct CommandContext {
    GlobalOptions global;
    int exit_status = 0;
};

// Fails closed for --backend values other than ptrace (E001) and applies --log.
void apply_global_options(const GlobalOptions& global);

void add_run_command(CLI::App& app, CommandContext& context);
void add_record_command(CLI::App& app, CommandContext& context);
void add_replay_command(CLI::App& app, CommandContext& context);
void add_search_command(CLI::App& app, CommandContext& context);
void add_analyze_command(CLI::App& app, CommandContext& context);
void add_gui_command(CLI::App& app, CommandContext& context);
void add_diff_command(CLI::App& app, CommandContext& context);
void add_export_command(CLI::App& app, CommandContext& context);

} // namespace hermit::cli
