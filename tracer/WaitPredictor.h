#pragma once
// WaitPredictor: tells, without running it, whether a trapped syscall would put its thread to sleep now
// (a futex whose word still holds the expected value, a read of an empty pipe, a poll with nothing ready,
// a wait4 with no child to report, a sigtimedwait for signals none of which is pending). The Session then
// parks the thread at the syscall instead of letting it sleep in the kernel while holding the run token, and
// asks again at later scheduling points, so every wait of the guest becomes a scheduling decision made at the
// same point of every run.
//
// Timeouts are not part of the prediction: timeout_ns() says how long a timed wait may wait, so the
// Session can let it time out on the guest's virtual clock instead of the host's.
//
// Descriptors are examined through duplicates from pidfd_getfd(2), which share the guest's open file
// description (pipe buffer, flags); poll(2) on a duplicate consumes nothing. A signalfd is the exception (it
// reports the signals of whoever polls it): its mask from /proc/<pid>/fdinfo is compared with the guest
// thread's pending signals instead, also inside an epoll set. When in doubt the answer is
// "does not wait": the kernel then runs the syscall and the Session's blocked-thread check is the fallback.

#include "SyscallInterceptor.h"

#include <sys/types.h>

#include <map>
#include <optional>
#include <vector>

namespace hermit::tracer {

class Task;
namespace virt {
class VirtualClock;
}

class WaitPredictor {
public:
    WaitPredictor() = default;
    ~WaitPredictor();
    WaitPredictor(const WaitPredictor&) = delete;
    WaitPredictor& operator=(const WaitPredictor&) = delete;

    // Whether the kernel would make `task` wait if it ran `stop` now (a zero timeout never waits).
    // `task` is ptrace-stopped.
    bool would_wait(Task& task, const SyscallStop& stop);
    // Whether would_wait's answer for `stop` is a prediction: false for the syscalls it knows nothing of
    // (accept, connect, flock, ...), about which it answers "does not wait" whether they would or not.
    static bool predicts(const SyscallStop& stop);

    // For a wait with a finite timeout: how long it waits at most, in ns from `clock`'s now (absolute
    // deadlines are read on the virtual clock they name). nullopt when it has no timeout.
    static std::optional<int64_t> timeout_ns(Task& task, const SyscallStop& stop,
                                             const virt::VirtualClock& clock);
    // The result the kernel gives a wait that timed out, after clearing what it reports as ready.
    static int64_t time_out(Task& task, const SyscallStop& stop);

    // The process is gone; its pidfd is closed (a later process may reuse the pid).
    void forget(pid_t host_pid);

private:
    // The prediction without regard to pending signals.
    bool waits_for_something(Task& task, const SyscallStop& stop);
    bool futex_would_wait(Task& task, const SyscallStop& stop);
    bool poll_would_wait(Task& task, const SyscallStop& stop);
    bool select_would_wait(Task& task, const SyscallStop& stop);
    bool child_wait_would_wait(Task& task, const SyscallStop& stop);
    // rt_sigtimedwait: none of the awaited signals is pending.
    bool signal_wait_would_wait(Task& task, const SyscallStop& stop);
    bool read_would_wait(Task& task, int fd);
    bool write_would_wait(pid_t host_pid, int fd, size_t length);
    // Whether any of `requests` (guest descriptors and poll events) is ready, or the check is impossible.
    bool any_ready(Task& task, const std::vector<std::pair<int, short>>& requests);

    // A duplicate of the guest's descriptor, closed by the caller; -1 on failure.
    int duplicate(pid_t host_pid, int fd);

    std::map<pid_t, int> pidfds_;
};

} // namespace hermit::tracer
