#pragma once
// DebugHook: how a debugger takes part in a Session. The Session calls it on its own (tracer) thread,
// because ptrace requests are only accepted from the thread that attached. While a hook call runs, every
// guest thread is ptrace-stopped (one thread runs at a time), so the hook may read and write any of them.
//
// The hook sees every SIGTRAP that is not a signal sent by a process (a breakpoint, the end of a single
// step, a hardware watchpoint) and decides whether it was the debugger's: then the trap never reaches the
// guest and the thread goes on. It also sees every other signal before its delivery, and every process's
// end while its memory is still there: a debugger stops there (rr's crash-first debugging). before_resume()
// lets it prepare a thread (debug registers) each time the Session resumes one, and decides whether the
// thread runs for one instruction only: asked at every resume, it also keeps a step going across the trapped
// syscalls the Session handles on the way.

#include <sys/types.h>

#include <vector>

namespace hermit::tracer {

class Task;

enum class DebugResume {
    NotMine, // not caused by the debugger: the Session delivers the SIGTRAP to the guest as usual
    Resume,  // the debugger's trap: resume the thread (before_resume says whether for one instruction)
};

class DebugHook {
public:
    virtual ~DebugHook() = default;
    // `task` stopped with SIGTRAP (`si_code` from its siginfo). `stopped` are all the ptrace-stopped guest
    // threads, `task` first; they are valid only during the call. The hook may block (a debugger
    // inspecting the guest) and may throw to end the Session (which then kills the guest).
    virtual DebugResume on_trap(Task& task, int si_code, const std::vector<Task*>& stopped) = 0;
    // `task` is at the delivery stop of `signal_number` (one the debugger did not take as its trap). The
    // Session delivers it when the call returns; a fatal one then ends the process. May block and throw,
    // as on_trap.
    virtual void on_signal(Task& task, int signal_number, const std::vector<Task*>& stopped) = 0;
    // `task`'s process ends (exit_group, a fatal signal, or its last thread's exit): `task` is at its exit
    // stop, with its registers and memory still there. May block and throw, as on_trap.
    virtual void on_process_exit(Task& task, const std::vector<Task*>& stopped) = 0;
    // `task` was interrupted because the debugger asked the guest to stop (Session::set_debug_hook), at
    // whatever instruction it was. May block and throw, as on_trap.
    virtual void on_interrupt(Task& task, const std::vector<Task*>& stopped) = 0;
    // Called right before the Session continues `task` (PTRACE_CONT, not PTRACE_SYSCALL); true makes it
    // a PTRACE_SINGLESTEP. Must not throw.
    virtual bool before_resume(Task& task) noexcept = 0;
};

} // namespace hermit::tracer
