// The GUI as a module that `hermit gui` loads with dlopen (cli/GuiCommand.cc), so that no other command
// loads Qt: linking Qt into the hermit binary cost about 7 ms of every start (about 40 more libraries to map
// and relocate) and made every fork of hermit copy their mappings.
#include "GuiLauncher.h"

#include "formats/Error.h"

// Nothing is thrown out of the module: hermit links its own copy of libstdc++ and libgcc
// (cli/CMakeLists.txt), whose unwinder cannot catch an exception the module's shared copy throws (the
// process aborts). The module reports its errors (a corrupt recording, no display) as hermit's main would.
extern "C" int hermit_gui_run(const hermit::gui::GuiRequest* request) {
    try {
        return hermit::gui::run_gui(*request);
    } catch (const hermit::Error& error) {
        return hermit::report(error);
    }
}
