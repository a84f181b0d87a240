#pragma once
// SignalTarget: a forked child for timer tests that blocks one signal and reports through its exit status
// whether that signal arrived (within 5 s) with a siginfo the test accepts.

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>

namespace hermit::tracer::virt {

class SignalTarget {
public:
    explicit SignalTarget(
        int signal_number,
        const std::function<bool(const siginfo_t&)>& accepts = [](const siginfo_t&) { return true; }) {
        sigset_t awaited;
        sigemptyset(&awaited);
        sigaddset(&awaited, signal_number);
        sigprocmask(SIG_BLOCK, &awaited, &saved_);
        pid_ = fork();
        if (pid_ == 0) {
            siginfo_t info{};
            timespec limit{5, 0};
            _exit(sigtimedwait(&awaited, &info, &limit) == signal_number && accepts(info) ? 0 : 1);
        }
    }
    ~SignalTarget() {
        if (pid_ > 0) {
            kill(pid_, SIGKILL);
            waitpid(pid_, nullptr, 0);
        }
        sigprocmask(SIG_SETMASK, &saved_, nullptr);
    }
    SignalTarget(const SignalTarget&) = delete;
    SignalTarget& operator=(const SignalTarget&) = delete;

    pid_t pid() const { return pid_; }
    // Waits for the child; true when the signal arrived and was accepted.
    bool received() {
        int status = 0;
        waitpid(pid_, &status, 0);
        pid_ = 0;
        return WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }

private:
    pid_t pid_ = 0;
    sigset_t saved_{};
};

} // namespace hermit::tracer::virt
