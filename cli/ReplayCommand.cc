#include "Commands.h"

#include "formats/Error.h"
#include "replay/DebugServe.h"
#include "replay/ReplayRun.h"

#include <optional>
#include <string>

namespace hermit::cli {

namespace {

struct ReplayArguments {
    std::string recording = "latest";
    bool autopilot = false;
    uint64_t goto_event = 0;
    bool serve_only = false;
    int gdbserver_port = 0;
    std::optional<int32_t> follow_pid;
};

} // namespace

void add_replay_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<ReplayArguments>();
    auto* command = app.add_subcommand("replay", "Re-execute a recording exactly, alone or under gdb");
    command->add_option("recording", arguments->recording, "Recording id, 'latest' or a recording directory")
        ->capture_default_str();
    // rr's spellings too: -a, -g EVENT, -p PID.
    command->add_flag("-a,--autopilot", arguments->autopilot,
                      "Replay to the end without a debugger: reproduce the output and exit status, or fail "
                      "with E040 at the first divergence");
    command->add_option("-g,--goto-event", arguments->goto_event,
                        "Stop the replay at this event index and attach the debugger there (ignored with "
                        "--autopilot)");
    command->add_flag("--serve-only", arguments->serve_only,
                      "Start the gdbserver and wait for a debugger instead of launching gdb");
    command->add_option("--gdbserver-port", arguments->gdbserver_port, "Port for the gdbserver on 127.0.0.1")
        ->check(CLI::Range(0, 65535));
    command->add_option(
        "-f,-p,--follow", arguments->follow_pid,
        "Debug the guest process PID (as in the recording, see 'hermit record dump') instead of "
        "the initial one; gdb first stops at its exec's entry point, or right after its fork "
        "when it never execs");
    command->callback([&context, arguments] {
        apply_global_options(context.global);
        if (!arguments->autopilot) {
            context.exit_status =
                replay::debug_replay({arguments->recording, arguments->serve_only, arguments->gdbserver_port,
                                      arguments->goto_event, arguments->follow_pid});
            return;
        }
        context.exit_status = replay::replay_autopilot(arguments->recording);
    });
}

} // namespace hermit::cli
