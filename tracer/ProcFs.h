#pragma once
// ProcFs: the facts about a guest thread that only /proc knows (namespace-local ids, scheduler state,
// whether it sits in a syscall, signal dispositions). Every function tolerates a vanished thread.

#include "SyscallInterceptor.h"

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace hermit::tracer::procfs {

struct GuestIds {
    int32_t tid = 0;
    int32_t pid = 0;
    pid_t host_pid = 0; // the host tgid; 0 when the thread is gone
};

// The innermost-namespace tid and tgid (last fields of NSpid/NStgid; host ids when unavailable) and the
// host tgid, from one read of /proc/<tid>/status (a new thread's stop needs all three).
GuestIds guest_ids(pid_t host_tid);
// The state letter of /proc/<tid>/stat ('R', 'S', 'D', 't', 'Z', ...), or 0 when the thread is gone.
char thread_state(pid_t host_tid);
// The thread is on its way out: SIGKILL pending, exiting (PF_EXITING), a zombie, or gone.
bool dying(pid_t host_tid);
// The system call the thread sleeps in (number and arguments), from /proc/<tid>/syscall; nullopt when it
// runs, is stopped outside a syscall, or is gone.
std::optional<SyscallStop> current_syscall(pid_t host_tid);
// Bit masks (bit N-1 for signal N) of the process's caught, ignored and blocked signals.
struct SignalDispositions {
    uint64_t caught = 0;
    uint64_t ignored = 0;
    uint64_t blocked = 0;
    uint64_t pending = 0; // pending for the thread or its whole process

    // Whether a pending signal is one the thread would take with `mask` blocked (it ends any wait).
    bool pending_deliverable(uint64_t mask) const { return (pending & ~mask & ~ignored) != 0; }
    bool pending_deliverable() const { return pending_deliverable(blocked); }
};
SignalDispositions signal_dispositions(pid_t host_tid);
// Whether the thread's real user and group are its effective ones (Uid and Gid in /proc/<tid>/status).
bool real_ids_are_effective(pid_t host_tid);
// The thread's umask, or nullopt when it is gone.
std::optional<mode_t> file_creation_mask(pid_t host_tid);

// The inode of the user namespace of thread `host_tid` (/proc/<tid>/ns/user; `self` for hermit's own).
std::optional<ino_t> user_namespace(pid_t host_tid);
std::optional<ino_t> own_user_namespace();
std::string executable_path(pid_t host_tid);
// The path of the working directory of thread `host_tid` (/proc/<tid>/cwd); empty when unreadable.
std::string working_directory_path(pid_t host_tid);
// /proc/<pid>/fd/<fd>: opening, stat'ing or reading this link reaches what descriptor `fd` of the process
// names.
std::string descriptor_link(pid_t host_pid, int fd);
// The device and inode of the object descriptor `fd` of a process names (both ends of a pipe are one inode
// of pipefs), from a stat of /proc/<pid>/fd/<fd>; nullopt when it is not open.
std::optional<std::pair<dev_t, ino_t>> descriptor_object(pid_t host_pid, int fd);
// The child processes of a process (of any of its threads), by host pid.
std::vector<pid_t> child_processes(pid_t host_pid);
// The process group of a process, or 0 when it is gone.
pid_t process_group(pid_t host_pid);
std::vector<std::string> command_line(pid_t host_tid);

} // namespace hermit::tracer::procfs
