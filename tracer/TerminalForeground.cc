#include "TerminalForeground.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hermit::tracer {

TerminalForeground::TerminalForeground(pid_t guest_group) {
    UniqueFd terminal(open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY));
    if (terminal.get() < 0 || tcgetpgrp(terminal.get()) != getpgrp()) {
        return; // no terminal, or hermit runs in the background: the guest gets none either
    }
    // A background job that sets the foreground group, or writes with TOSTOP, gets SIGTTOU: hermit, in the
    // background while the guest runs, ignores it (writes then go through).
    struct sigaction ignore {};
    ignore.sa_handler = SIG_IGN;
    sigaction(SIGTTOU, &ignore, &background_writes_);
    if (tcsetpgrp(terminal.get(), guest_group) != 0) {
        spdlog::debug("cannot give the terminal to the guest: {}", std::strerror(errno));
        sigaction(SIGTTOU, &background_writes_, nullptr);
        return;
    }
    hermit_group_ = getpgrp();
    terminal_ = std::move(terminal);
}

TerminalForeground::~TerminalForeground() {
    if (terminal_.get() < 0) {
        return;
    }
    tcsetpgrp(terminal_.get(), hermit_group_);
    sigaction(SIGTTOU, &background_writes_, nullptr);
}

} // namespace hermit::tracer
