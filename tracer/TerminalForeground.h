#pragma once
// TerminalForeground: the guest as the terminal's foreground job, as a shell runs a command. When hermit
// is the foreground job of its controlling terminal, the guest's process group gets the terminal for the
// run: its reads, tcsetattr and window size work as natively, and the terminal's Ctrl-C, Ctrl-\ and Ctrl-Z
// go to the guest, not to hermit. hermit takes the terminal back at the end.

#include "formats/FileIo.h"

#include <signal.h>
#include <sys/types.h>

namespace hermit::tracer {

class TerminalForeground {
public:
    // Gives the terminal to process group `guest_group` if hermit is its foreground job; else nothing.
    explicit TerminalForeground(pid_t guest_group);
    ~TerminalForeground(); // takes the terminal back
    TerminalForeground(const TerminalForeground&) = delete;
    TerminalForeground& operator=(const TerminalForeground&) = delete;

private:
    UniqueFd terminal_;
    pid_t hermit_group_ = 0;
    struct sigaction background_writes_ {}; // SIGTTOU's disposition before hermit ignored it
};

} // namespace hermit::tracer
