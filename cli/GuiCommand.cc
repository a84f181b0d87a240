#include "Commands.h"
#include "SyscallNameLookup.h"

#include "formats/Error.h"
#include "formats/RecordingStore.h"
#include "gui/GuiLauncher.h"

#include <dlfcn.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace hermit::cli {

namespace {

struct GuiArguments {
    std::string recording;
    std::vector<std::string> diff;
    std::string screenshot;
    bool event_order = false;
};

// The GUI lives in a module next to the hermit binary (gui/GuiModule.cc), loaded only here so that the
// other commands do not load Qt. It stays loaded: Qt does not support being unloaded.
int run_gui_module(const gui::GuiRequest& request) {
    const std::filesystem::path module =
        std::filesystem::read_symlink("/proc/self/exe").parent_path() / "hermit-gui.so";
    void* handle = dlopen(module.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) {
        throw Error(ErrorCode::GuiUnavailable, dlerror());
    }
    auto* run = reinterpret_cast<int (*)(const gui::GuiRequest*)>(dlsym(handle, "hermit_gui_run"));
    if (run == nullptr) {
        throw Error(ErrorCode::GuiUnavailable, dlerror());
    }
    return run(&request);
}

int run_gui_command(const GuiArguments& arguments, const std::string& log_level) {
    if (!arguments.recording.empty() && !arguments.diff.empty()) {
        throw Error(ErrorCode::UsageError, "give either a recording or --diff A B, not both");
    }
    RecordingStore store;
    gui::GuiRequest request;
    request.diff = !arguments.diff.empty();
    request.event_order = arguments.event_order;
    for (const std::string& id_or_path : request.diff ? arguments.diff : std::vector<std::string>{}) {
        request.recordings.push_back(store.resolve(id_or_path));
    }
    if (!arguments.recording.empty()) {
        request.recordings.push_back(store.resolve(arguments.recording));
    }
    if (!arguments.screenshot.empty()) {
        request.screenshot = arguments.screenshot;
    }
    request.syscall_names = tracer_syscall_names();
    request.log_level = log_level;
    return run_gui_module(request);
}

} // namespace

void add_gui_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<GuiArguments>();
    auto* command = app.add_subcommand("gui", "Browse a recording on a timeline, or compare two with --diff");
    command->add_option("recording", arguments->recording,
                        "Recording: id, 'latest' or directory (none: choose one in the window)");
    command
        ->add_option("--diff", arguments->diff,
                     "Show two recordings on one time axis and their first divergence")
        ->expected(2);
    command->add_option("--screenshot", arguments->screenshot,
                        "Render the window offscreen at 1400x800 into this PNG file and exit");
    command->add_flag("--event-order", arguments->event_order,
                      "Lay timelines out by event index instead of logical time");
    command->footer("Without a display, use --screenshot (or QT_QPA_PLATFORM=offscreen); otherwise E080.");
    command->callback([&context, arguments] {
        apply_global_options(context.global);
        context.exit_status = run_gui_command(*arguments, context.global.log_level);
    });
}

} // namespace hermit::cli
