#pragma once
// SyscallNotifications: the tracer's end of SeccompFilter::notifying. A guest thread that makes one of
// those syscalls waits in the kernel while the tracer reads its notification, answers it from outside
// (guest memory through process_vm_writev) and replies with the result: no ptrace stop, whose two context
// switches and register round trips cost ten times more.
//
// When the answer needs a ptrace stop after all (an exit stop, a signal to deliver first, a scheduling
// point), the Session interrupts the thread (PTRACE_INTERRUPT) and replies restart_at_ptrace_stop(): the
// syscall returns -ERESTARTNOINTR into the pending interrupt stop, where the Session puts
// SeccompFilter::kRetraceMarker into r9 (the sixth argument, unused by the notified syscalls). The kernel
// then runs the syscall again, the notifying filter lets it through, and the ptrace filter stops it: the
// Session restores r9 there and goes on as if that were the first stop.

#include "SyscallInterceptor.h"
#include "formats/FileIo.h"

#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <optional>
#include <vector>

namespace hermit::tracer {

class SyscallNotifications {
public:
    struct Notification {
        uint64_t id = 0;
        pid_t host_tid = 0;
        SyscallStop stop;
    };

    // An invalid listener: no notifications (every trapped syscall is a ptrace stop).
    explicit SyscallNotifications(UniqueFd listener = UniqueFd{});

    bool active() const { return listener_.get() >= 0; }
    int descriptor() const { return listener_.get(); }

    // A notification waits to be read (without waiting for one), or one was held back.
    bool pending() const;
    // The next notification (a held one first); nullopt when the thread was killed before it was read.
    std::optional<Notification> receive();
    // Keeps a received notification for the next receive(): one that came while the tracer attended to
    // something else (a debugger's diversion).
    void hold(const Notification& notification) { held_.push_back(notification); }
    bool holds() const { return !held_.empty(); }
    // The guest sees `result` (a negative errno for a failure). False when the thread is gone.
    bool answer(uint64_t id, int64_t result);
    // The kernel runs the syscall as it is.
    bool run_in_kernel(uint64_t id);
    // Puts a duplicate of hermit's `file` into the notifying thread's descriptor table at its lowest free
    // number, as an open would, and answers the notification with that number in the same step
    // (SECCOMP_IOCTL_NOTIF_ADDFD with SECCOMP_ADDFD_FLAG_SEND, Linux 5.14). Returns the number, or a
    // negative errno (EMFILE past the guest's limit, ENOENT when the thread is gone), and then the
    // notification is not answered.
    int64_t install_and_answer(uint64_t id, int file, bool close_on_exec);
    // The syscall fails with -ERESTARTNOINTR, which the kernel turns into a restart once the thread's
    // pending stop (PTRACE_INTERRUPT, sent before) is over.
    bool restart_at_ptrace_stop(uint64_t id);

private:
    bool reply(uint64_t id, int64_t value, int32_t error, uint32_t flags);

    UniqueFd listener_;
    std::deque<Notification> held_;
    // The kernel's sizes of struct seccomp_notif and seccomp_notif_resp, which may outgrow the headers'.
    std::vector<uint8_t> request_;
    std::vector<uint8_t> response_;
};

} // namespace hermit::tracer
