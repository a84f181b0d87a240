// The GUI as a module that `hermit gui` loads with dlopen (cli/GuiCommand.cc), so that no other command
// loads Qt: linking Qt into the hermit binary cost about 7 ms of every start (about 40 more libraries to map
// and relocate) and made every fork of hermit copy their mappings.
#include "GuiLauncher.h"

extern "C" int hermit_gui_run(const hermit::gui::GuiRequest* request) {
    return hermit::gui::run_gui(*request);
}
