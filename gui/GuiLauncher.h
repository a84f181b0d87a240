#pragma once
// The entry point of `hermit gui`: opens the main window on one recording (or none), or the diff view on
// two, either interactively or rendered once offscreen to a PNG (--screenshot). Kept free of Qt types so
// the CLI does not need Qt's headers.

#include "formats/EventDescription.h"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace hermit::gui {

struct GuiRequest {
    // None or one for the main window; exactly two with `diff`.
    std::vector<std::filesystem::path> recordings;
    bool diff = false;
    // Timelines by event index instead of logical time.
    bool event_order = false;
    std::optional<std::filesystem::path> screenshot;
    int screenshot_width = 1400;
    int screenshot_height = 800;
    hermit::SyscallNameLookup syscall_names;
    std::string log_level = "warn"; // hermit's --log, for the module's own logger (formats/Logging.h)
};

// Why no window can be shown here (no DISPLAY, no X socket...), or empty when one can.
std::string display_problem();

// Returns the process exit status. Throws hermit::Error: E03x for a recording that cannot be read (checked
// before any window opens), E080 when no display is available, E081 when the screenshot cannot be written.
int run_gui(const GuiRequest& request);

} // namespace hermit::gui
