#include "Commands.h"

namespace hermit::cli {

void add_diff_command(CLI::App& app, CommandContext& context) {
    auto* command = app.add_subcommand("diff", "(not built yet)");
    command->callback([&context] { apply_global_options(context.global); });
}

} // namespace hermit::cli
