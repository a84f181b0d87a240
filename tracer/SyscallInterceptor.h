#pragma once
// SyscallInterceptor: a component that acts on the guest's trapped system calls (virtualization, the
// recorder, the replayer, the strace printer). The Session asks each interceptor, in the order they were
// added, at syscall entry; the first that answers Run, Emulate or Retry decides. Every interceptor that
// asked for the exit (StopAtExit, ReplacePath) sees it, in reverse order, and may replace the result. When
// nobody decided, the Session itself parks a syscall that would wait (tracer/WaitPredictor.h) like a Retry.
// A notified open that the kernel would run with its exit watched, the Session may do itself, as the guest
// (tracer/virt/GuestOpen.h): on_opened_for_guest() sees hermit's descriptor of the file first, then the
// guest gets its own and runs on, and on_exit() sees the guest's number.
//
// Only syscalls in the union of trapped_syscalls(), and conditionally_trapped_syscalls() whose argument
// matches, stop the guest: everything else runs at native speed.

#include "formats/Event.h"

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace hermit::tracer {

class Task;
struct OpenedFileInfo;

struct SyscallStop {
    int number = 0;
    std::array<uint64_t, 6> args{};
};

struct SyscallDecision {
    enum class Kind {
        Pass,       // this interceptor has no opinion; ask the next one
        Run,        // let the kernel run it as it is, even if it waits; no exit stop needed
        StopAtExit, // let the kernel run it and call on_exit() with the result
        // as StopAtExit, the kernel opening or executing `path` (an absolute path of hermit's file) instead
        // of the one the guest gave (open, openat, creat, execve, execveat, chdir); the guest finds its own
        // path argument in its register after the syscall
        ReplacePath,
        Emulate, // skip the kernel; the guest sees `result` (memory already written by the interceptor)
        Retry,   // not now: the thread waits at the entry and is asked again when it runs again
        // let the kernel run it as if it were not trapped: no exit, no event. Only for a syscall that every
        // run and replay of the guest answers the same way without being told (a readlink of a system
        // file), decided the same way in each of them from what the guest asks.
        Untraced,
        // `signal` from outside the guest reaches the thread first, as if sent just before this syscall
        // (during it for pause and rt_sigsuspend, which return once a handler ran); the syscall is asked
        // again after the handler returns. A replay answers this where the recording has such a signal.
        DeliverSignal,
    };
    Kind kind = Kind::Pass;
    int64_t result = 0;
    // After this syscall the thread gives up the run token (a scheduling point).
    bool yield = false;
    SignalEvent signal{}; // DeliverSignal: number, si_code, sender pid and uid as the guest sees them
    // Emulate: the interceptor read the result from the outside world (a file, its metadata) instead of
    // computing it from hermit's own state; a recording keeps it (the event is not marked emulated) because
    // a replay cannot compute it again.
    bool outside_input = false;
    std::string path; // ReplacePath

    static SyscallDecision pass() { return {}; }
    static SyscallDecision run() { return of(Kind::Run); }
    static SyscallDecision stop_at_exit() { return of(Kind::StopAtExit); }
    static SyscallDecision replace_path(std::string path) {
        SyscallDecision decision = of(Kind::ReplacePath);
        decision.path = std::move(path);
        return decision;
    }
    static SyscallDecision emulate(int64_t result) { return of(Kind::Emulate, result); }
    static SyscallDecision emulate_outside_input(int64_t result) {
        SyscallDecision decision = of(Kind::Emulate, result);
        decision.outside_input = true;
        return decision;
    }
    static SyscallDecision retry() { return of(Kind::Retry); }
    static SyscallDecision untraced() { return of(Kind::Untraced); }
    static SyscallDecision deliver_signal(const SignalEvent& signal) {
        SyscallDecision decision = of(Kind::DeliverSignal);
        decision.signal = signal;
        return decision;
    }

private:
    static SyscallDecision of(Kind kind, int64_t result = 0) {
        SyscallDecision decision;
        decision.kind = kind;
        decision.result = result;
        return decision;
    }
};

// A syscall that stops the guest only when one of its arguments matches: (args[argument] & mask) == value.
// The seccomp filter sees argument values, not the memory they point to (no paths).
struct ConditionalTrap {
    int number = 0;
    unsigned argument = 0;
    uint64_t mask = 0;
    uint64_t value = 0;
};

class SyscallInterceptor {
public:
    virtual ~SyscallInterceptor() = default;
    // Syscall numbers (x86_64) this interceptor needs to see. A set containing kAllSyscalls traps all.
    virtual std::set<int> trapped_syscalls() const = 0;
    // Syscalls this interceptor needs to see only when an argument matches. Another interceptor's
    // unconditional trap of the same syscall wins, so on_entry() must still expect the other calls.
    virtual std::vector<ConditionalTrap> conditionally_trapped_syscalls() const { return {}; }
    // Of its trapped syscalls, those whose on_entry() and on_exit() need no ptrace stop: they read the stop's
    // number and arguments and guest memory, never registers. The Session receives such a syscall as a
    // seccomp user notification (a wait on a descriptor, ~5 us, instead of a ~120 us ptrace stop) when every
    // interceptor that traps it lists it here; if the entry is then not a plain emulation, the Session still
    // brings the thread to a ptrace stop (tracer/SyscallNotifications.h).
    virtual std::set<int> notifiable_syscalls() const { return {}; }
    // Syscalls the guest's preload library makes itself, from the syscall buffer's call site, while this
    // interceptor runs the guest (the recorder): the filters let them through from there untrapped
    // (tracer/SyscallBuffer.h).
    virtual std::set<int> buffered_syscalls() const { return {}; }
    // Whether on_entry() of this notified `stop` can do without a ptrace stop (asked of every interceptor
    // before any on_entry()); false brings the thread to its ptrace stop first.
    virtual bool answers_without_stop(Task& /*task*/, const SyscallStop& /*stop*/) const { return true; }
    virtual SyscallDecision on_entry(Task& task, const SyscallStop& stop) = 0;
    // Whether on_entry() will answer Untraced for this syscall. An interceptor in front that follows a
    // recording (the replayer) then leaves it alone as well: the recording has no event of it.
    virtual bool answers_untraced(Task& /*task*/, const SyscallStop& /*stop*/) { return false; }
    // An interceptor in front (the replayer) answered this syscall from its recording, so on_entry() is not
    // asked: update what seeing the syscall updates (the Virtualizer's clock) as during the recording, but
    // act on nothing outside (the guest's memory holds the recorded answer, `result` is its result or
    // SyscallEvent::kRetried). By default on_entry(), whose answer is ignored.
    virtual void on_entry_answered_in_front(Task& task, const SyscallStop& stop, int64_t /*result*/) {
        on_entry(task, stop);
    }
    // A call the thread made in its syscall buffer since its last stop, about to be emitted as an event
    // (tracer/SyscallBuffer.h): the replayer keeps its view of the file system in step.
    virtual void on_buffered_syscall(Task& /*task*/, const SyscallEvent& /*call*/) {}
    // An open the Session does for the guest (tracer/virt/GuestOpen.h), before the guest has the file:
    // `file` is hermit's descriptor of the open file description the guest will get. Whatever must be done
    // before the guest can read or write the file is done here.
    virtual void on_opened_for_guest(Task& /*task*/, const SyscallStop& /*stop*/, int /*file*/,
                                     const OpenedFileInfo& /*info*/) {}
    // `result` is the raw return value (negative errno); an interceptor may change it. After
    // on_opened_for_guest() the guest runs on with its descriptor already: the result is final, and the
    // guest's memory and descriptors may have moved on.
    virtual void on_exit(Task& /*task*/, const SyscallStop& /*stop*/, int64_t& /*result*/) {}

    // Faulting instructions. With CPUID faulting (arch_prctl(ARCH_SET_CPUID, 0)) and rdtsc trapping
    // (PR_TSC_SIGSEGV) the guest gets a SIGSEGV at each cpuid/rdtsc/rdtscp. The Session turns these on only
    // when some interceptor answers true to handles_faults(), and then offers every SIGSEGV to on_fault()
    // in order: return true if the interceptor emulated the faulting instruction (registers set, rip moved
    // past it) and the signal must be suppressed; false passes it on (a real crash is delivered as usual).
    virtual bool handles_faults() const { return false; }
    virtual bool on_fault(Task& /*task*/, int /*signal*/) { return false; }

    // Called before a stopped thread resumes, whatever stopped it, and before the answer to a notified
    // syscall lets it run on (no registers then).
    virtual void on_resume(Task& /*task*/) {}

    // Called at the PTRACE_EVENT_EXEC stop of a thread that completed an execve (new address space).
    virtual void on_exec(Task& /*task*/) {}

    static constexpr int kAllSyscalls = -1;
};

} // namespace hermit::tracer
