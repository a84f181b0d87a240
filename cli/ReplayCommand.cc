#include "Commands.h"

namespace hermit::cli {

void add_replay_command(CLI::App& app, CommandContext& context) {
    auto* command = app.add_subcommand("replay", "(not built yet)");
    command->callback([&context] { apply_global_options(context.global); });
}

} // namespace hermit::cli
