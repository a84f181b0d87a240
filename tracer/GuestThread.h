#pragma once
// GuestThread: the Session's bookkeeping for one guest thread (its state in the schedule, what its current
// syscall entry decided, what is held for it), shared by the Session's event loop and its BlockingModel.

#include "SyscallInterceptor.h"
#include "Task.h"
#include "formats/Event.h"

#include <sys/ptrace.h>
#include <sys/types.h>

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hermit::tracer {

enum class ThreadState {
    Starting,     // created by clone/fork; its first stop has not been seen yet
    Running,      // resumed (the token holder, or any thread without deterministic scheduling)
    Ready,        // ptrace-stopped, waiting for the token
    Blocked,      // interrupted while blocked in the kernel; retried at later scheduling points
    Released,     // left asleep in an open that waits for another thread (a FIFO's other end), until its next
                  // stop
    Waiting,      // parked at the entry of a syscall that would wait, until the wait is over
    GroupStopped, // in a job-control stop (PTRACE_LISTEN) until SIGCONT
    VforkWaiting, // a vfork parent: running in the kernel until its child execs or exits
    Exiting,      // past PTRACE_EVENT_EXIT, waiting to be reaped
};

// What the interceptors decided at a syscall's entry.
struct EntryDecision {
    SyscallDecision decision = SyscallDecision::run();
    bool decided = false;
    bool yield_requested = false;
    // What the kernel opens or executes instead of the guest's path (SyscallDecision::ReplacePath).
    std::optional<std::string> path_instead;

    // Nobody decided, or the decision is to let the kernel run the syscall as it is.
    bool kernel_runs_it() const { return !decided || decision.kind == SyscallDecision::Kind::Run; }
};

// A syscall entry seen as a seccomp notification that needs a ptrace stop after all
// (tracer/SyscallNotifications.h): the thread runs it again with the marker in r9.
struct NotifiedEntry {
    uint64_t r9 = 0; // the guest's, restored once the kernel's seccomp recheck is past (Thread::guest_r9)
    bool marked = false;
    // What the interceptors decided at the notification; none when they were not asked yet.
    std::optional<EntryDecision> entry;
};

// The tracer's bookkeeping for one guest thread.
struct Thread {
    std::unique_ptr<Task> task;
    ThreadState state = ThreadState::Starting;
    int resume_request = PTRACE_CONT;
    int resume_signal = 0;
    bool interrupt_requested = false;
    // PTRACE_INTERRUPTed for the debugger (Session::set_debug_hook's stop requests): its interrupt stop is
    // the debugger's.
    bool debugger_stop_requested = false;
    bool exit_reported = false;
    // A syscall that runs in the kernel and whose exit stop is awaited.
    bool awaiting_syscall_exit = false;
    // Every thread waits for something only the outside world can provide (or the guest is deadlocked):
    // this one runs its next syscall in the kernel even though it waits.
    bool wait_in_kernel = false;
    // The thread gave up the token at its current syscall entry (a scheduling point, or a wait that is
    // not over), which is handled when it gets the token back.
    bool entry_deferred = false;
    // Signals from outside the guest, held back until the thread's next trapped syscall entry so that
    // where they arrive is an event (a recording can say where; a replay sends them again there).
    std::deque<SignalEvent> outside_signals;
    // An outside signal hermit sent to the thread at a syscall entry and whose delivery stop is due.
    std::optional<SignalEvent> sent_signal;
    SyscallStop syscall;
    std::vector<SyscallInterceptor*> exit_interceptors;
    std::optional<NotifiedEntry> notified;
    // r9 holds SeccompFilter::kRetraceMarker instead of this, the guest's value (see on_seccomp_stop).
    std::optional<uint64_t> guest_r9;
    // The guest's path argument, replaced until the syscall's exit (SyscallDecision::ReplacePath).
    std::optional<uint64_t> guest_path_argument;
    // Blocked detection of the token holder.
    int64_t resumed_at_ns = 0;
    bool spin_warned = false;
    // Found asleep in the kernel in a syscall nothing traps (a pipe, a socket): from then on its context
    // switches are watched while it holds the token, so its next such sleep is seen at once. A thread that
    // never sleeps so (a compiler) is not watched: each of its stops would be a switch to dismiss.
    bool sleeps_untrapped = false;
    // Held at its exit stop until settle_exit lets it go (see on_exit_event), with the status to report.
    std::optional<int> held_exit_status;
    // A vfork child: the host tid of its parent, which sleeps in the kernel until this child execs or exits.
    pid_t vfork_parent = 0;
    // A vfork child whose parent runs again since it exec'd: it yields at its exec's last stop.
    bool yield_after_exec = false;
    // It exec'd a 32-bit program: killed once the execve is over (its event recorded like any other).
    bool refused_program = false;
};

// Every guest thread the Session knows, by host tid.
using ThreadTable = std::map<pid_t, Thread>;

} // namespace hermit::tracer
