#pragma once
// DescriptorTraps: makes some syscalls stop the guest only when they act on chosen file descriptors. A
// recording must see the guest's reads and writes of pipes, sockets and terminals, while those of a regular
// file can run at native speed when the replay gives the guest the same file. Seccomp sees a descriptor's
// number, not what it names, and an installed filter cannot change, only be stacked with another (the
// strictest answer wins). So descriptors are trapped by number: those the guest starts with in its first
// filter, and each new one, at the exit of the syscall that made it, by a small filter injected into the
// guest process (seccomp(2) with TSYNC, for all its threads). A number stays trapped once it was: a regular
// file that gets it later stops the guest at each call, which then runs untraced (no exit stop, no event).
//
// The guest's own pipes (from pipe and pipe2) are never trapped, wherever their ends go (dup2 onto stdin
// by a shell, make's jobserver in every job): all that goes through them the guest writes, and its replay
// writes it again under the same schedule, as a `hermit run` does. Only a pipe end that a process received
// (recvmsg with SCM_RIGHTS) is trapped: its replay receives a stand-in instead; so is any number one was
// received at, in every process, whatever it names later (the record and the replay must decide alike).
// Sockets from socketpair are trapped: send and recv on them are recorded whatever the descriptor.
//
// sendfile, splice, tee, copy_file_range and vmsplice move bytes inside the kernel, where no trap sees
// them: on a trapped descriptor they fail with EINVAL (as the kernel fails them on descriptors it cannot
// splice; programs fall back to read and write), between others they run untraced.
//
// Known gaps: a process created with CLONE_FILES but not CLONE_THREAD shares the descriptor table but not
// the filters injected after its creation; a guest pipe end passed to a process outside the guest (over a
// socket) would bring the outside's writes to the guest unrecorded.

#include "EventSink.h"
#include "SyscallInterceptor.h"

#include <sys/types.h>

#include <functional>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace hermit::tracer {

class DescriptorTraps : public SyscallInterceptor, public EventSink {
public:
    // Whether descriptor `fd` of guest process `host_pid` must be trapped; it must answer true for a
    // descriptor that does not exist (what hermit cannot see, it must not let run natively).
    using Policy = std::function<bool(pid_t host_pid, int fd)>;

    // `syscalls` take a descriptor as first argument; `initial_fds` are trapped from the start.
    DescriptorTraps(std::set<int> syscalls, std::set<int> initial_fds, Policy must_trap);

    // The syscalls that make descriptors (open, pipe, dup, recvmsg with SCM_RIGHTS, ...), connect a
    // socket (connect, bind, a first send) or move bytes between descriptors (sendfile, splice, ...).
    std::set<int> trapped_syscalls() const override;
    // open and openat: the Session does them from a notification only for regular files and directories
    // off pseudo file systems (virt/GuestOpen.h), which are never trapped, so no filter is injected then.
    std::set<int> notifiable_syscalls() const override;
    std::vector<ConditionalTrap> conditionally_trapped_syscalls() const override;
    SyscallDecision on_entry(Task& task, const SyscallStop& stop) override;
    void on_exit(Task& task, const SyscallStop& stop, int64_t& result) override;
    // A new process starts with the filters of its parent, whose numbers it may not know: it starts
    // knowing only the initial ones, and a redundant filter is the worst that can come of it.
    void on_event(const Event& event) override;

    // Descriptors one process may have trapped by injected filters; past this, it gets one more filter
    // that traps `syscalls` on every descriptor.
    static constexpr size_t kMaxInjectedDescriptors = 128;

private:
    std::vector<int> made_descriptors(Task& task, const SyscallStop& stop, int64_t result) const;
    // Whether calls on descriptor `fd` of process `host_pid` are recorded when its number is trapped: not
    // for the guest's own pipes, nor for a later number that names a file needing no trap.
    bool records(pid_t host_pid, int fd) const;
    // Descriptor `fd` of process `host_pid` is one of the guest's own pipes, at a number nothing was ever
    // received at.
    bool guest_pipe(pid_t host_pid, int fd) const;
    void trap(Task& task, const std::vector<int>& fds);

    std::set<int> syscalls_;
    std::set<int> initial_fds_;
    Policy must_trap_;
    std::set<int> watched_; // the syscalls that make descriptors or connect sockets (but fcntl)
    std::map<int32_t, std::set<int>> trapped_;      // by guest pid: numbers injected filters trap
    std::set<int32_t> trapping_everything_;         // guest pids past kMaxInjectedDescriptors
    std::set<std::pair<dev_t, ino_t>> guest_pipes_; // made by pipe or pipe2
    std::set<int> received_numbers_;                // where recvmsg put descriptors, in any process
};

} // namespace hermit::tracer
