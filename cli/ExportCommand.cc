#include "Commands.h"

namespace hermit::cli {

void add_export_command(CLI::App& app, CommandContext& context) {
    auto* command = app.add_subcommand("export", "(not built yet)");
    command->callback([&context] { apply_global_options(context.global); });
}

} // namespace hermit::cli
