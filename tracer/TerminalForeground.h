#pragma once
// TerminalForeground: the guest as the terminal's foreground job, as a shell runs a command. When hermit
// is the foreground job of its controlling terminal, the guest's process group gets the terminal for the
// run: its reads, tcsetattr and window size work as natively, and the terminal's Ctrl-C, Ctrl-\ and Ctrl-Z
// go to the guest, not to hermit. hermit takes the terminal back at the end.
//
// Job control: the guest's first process is its pid namespace's init, and the kernel drops a signal whose
// action is the default one when it comes to an init from inside its namespace (the terminal's Ctrl-Z
// does): it would never stop, and the shell would never get its terminal back. So a sentinel, a process
// of hermit's that ignores all but the stop signals, sits in the guest's process group: what stops the
// group (Ctrl-Z, a background read, `kill -TSTP -PGID`) stops the sentinel. hermit, told so by a SIGCHLD,
// then stops its own job with the same signal, as the guest's init would have stopped natively (unless
// it catches or ignores that signal): the shell says "Stopped" and takes the terminal. Once continued
// (`fg`, `bg`), hermit gives the terminal back to the guest if it has it again, and continues the guest's
// process group (the guest's processes the terminal stopped, and the sentinel).

#include "formats/FileIo.h"

#include <signal.h>
#include <sys/types.h>

namespace hermit::tracer {

class TerminalForeground {
public:
    // Gives the terminal to process group `guest_group` (led by the guest's init) if hermit is its
    // foreground job; else nothing.
    explicit TerminalForeground(pid_t guest_group);
    ~TerminalForeground(); // takes the terminal back
    TerminalForeground(const TerminalForeground&) = delete;
    TerminalForeground& operator=(const TerminalForeground&) = delete;

    // After a SIGCHLD: when the sentinel was stopped, stops hermit's job as described above and returns
    // once it is continued.
    void on_child_state_change();

private:
    void start_sentinel();
    // Whether the guest's init takes `signal_number`'s default action (neither catches nor ignores it).
    bool init_takes_default_action(int signal_number) const;

    UniqueFd terminal_;
    pid_t hermit_group_ = 0;
    pid_t guest_group_ = 0;
    pid_t sentinel_ = -1;
    struct sigaction background_writes_ {}; // SIGTTOU's disposition before hermit ignored it
};

} // namespace hermit::tracer
