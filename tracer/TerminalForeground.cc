#include "TerminalForeground.h"

#include "ProcFs.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iterator>

namespace hermit::tracer {

namespace {

// Signals that stop a process by default.
constexpr int kStopSignals[] = {SIGTSTP, SIGTTIN, SIGTTOU, SIGSTOP};

} // namespace

TerminalForeground::TerminalForeground(pid_t guest_group) : guest_group_(guest_group) {
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
    start_sentinel();
}

TerminalForeground::~TerminalForeground() {
    if (sentinel_ > 0) {
        kill(sentinel_, SIGKILL);
        while (waitpid(sentinel_, nullptr, 0) < 0 && errno == EINTR) {
        }
    }
    if (terminal_.get() < 0) {
        return;
    }
    tcsetpgrp(terminal_.get(), hermit_group_);
    sigaction(SIGTTOU, &background_writes_, nullptr);
}

void TerminalForeground::start_sentinel() {
    const pid_t sentinel = fork();
    if (sentinel < 0) {
        spdlog::debug("no job control for the guest: fork: {}", std::strerror(errno));
        return;
    }
    if (sentinel == 0) {
        // hermit may have other threads: only async-signal-safe calls from here on.
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        struct sigaction action {};
        for (int signal_number = 1; signal_number < NSIG; ++signal_number) {
            const bool stops = std::find(std::begin(kStopSignals), std::end(kStopSignals), signal_number) !=
                               std::end(kStopSignals);
            action.sa_handler = stops || signal_number == SIGCONT ? SIG_DFL : SIG_IGN;
            sigaction(signal_number, &action, nullptr);
        }
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, nullptr);
        setpgid(0, guest_group_);
        close_range(3, ~0U, 0);
        for (;;) {
            pause();
        }
    }
    // Set from both sides, as a shell does, so it is in the group whichever runs first.
    if (setpgid(sentinel, guest_group_) != 0 && errno != EACCES) {
        spdlog::debug("no job control for the guest: setpgid: {}", std::strerror(errno));
        kill(sentinel, SIGKILL);
        waitpid(sentinel, nullptr, 0);
        return;
    }
    sentinel_ = sentinel;
}

bool TerminalForeground::init_takes_default_action(int signal_number) const {
    const procfs::SignalDispositions dispositions = procfs::signal_dispositions(guest_group_);
    const uint64_t bit = uint64_t{1} << (signal_number - 1);
    return signal_number == SIGSTOP || ((dispositions.caught | dispositions.ignored) & bit) == 0;
}

void TerminalForeground::on_child_state_change() {
    int status = 0;
    if (sentinel_ <= 0 || waitpid(sentinel_, &status, WUNTRACED | WNOHANG) != sentinel_ ||
        !WIFSTOPPED(status)) {
        return;
    }
    const int signal_number = WSTOPSIG(status);
    if (init_takes_default_action(signal_number)) {
        spdlog::debug("the guest's process group was stopped by signal {}: stopping hermit's job",
                      signal_number);
        // Stops hermit (the signal comes as the call returns) and the rest of its job; the shell then
        // takes the terminal. SIGSTOP's place is taken by SIGTSTP: hermit must stay continuable by it.
        kill(0, signal_number == SIGSTOP ? SIGTSTP : signal_number);
        if (tcgetpgrp(terminal_.get()) == hermit_group_) {
            tcsetpgrp(terminal_.get(), guest_group_); // `fg`: the terminal is hermit's again
        }
    }
    kill(-guest_group_, SIGCONT);
}

} // namespace hermit::tracer
