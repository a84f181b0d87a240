#include "Commands.h"

namespace hermit::cli {

void add_search_command(CLI::App& app, CommandContext& context) {
    auto* command = app.add_subcommand("search", "(not built yet)");
    command->callback([&context] { apply_global_options(context.global); });
}

} // namespace hermit::cli
