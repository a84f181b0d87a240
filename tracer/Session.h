#pragma once
// Session: the guest process tree of one `hermit run` (or record, or replay) and the ptrace event loop
// that drives it. Exactly one guest thread runs at a time while deterministic scheduling is on; the others
// stay ptrace-stopped. Interceptors act on trapped syscalls, sinks receive every event, and the schedule
// policy picks who runs next at each scheduling point.
//
// Scheduling points: a trapped syscall whose decision (or the scheduler's own rule) says yield, which
// happens BEFORE the kernel runs it; clone/fork/vfork events; thread exit; a thread found blocked in the
// kernel (it is interrupted, marked blocked, and retried at later scheduling points). A ScheduleEvent is
// emitted whenever the policy is asked to choose among several threads or the running thread changes.

#include "DebugHook.h"
#include "EventSink.h"
#include "GuestLauncher.h"
#include "SchedulePolicy.h"
#include "SyscallInterceptor.h"
#include "formats/Recording.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hermit::tracer {

class TimerSource;
namespace virt {
class VirtualClock;
}

struct SessionOptions {
    std::vector<std::string> argv;        // argv[0] is looked up in PATH
    std::vector<std::string> env;         // the guest's whole environment
    std::string cwd;                      // empty: hermit's cwd
    bool namespaces = true;               // fresh user/pid/mount/uts namespaces
    bool deterministic_scheduling = true; // one thread at a time
    bool disable_aslr = true;
    bool trap_cpuid = true; // arch_prctl(ARCH_SET_CPUID, 0) when the host supports it
    bool trap_rdtsc = true; // prctl(PR_SET_TSC, PR_TSC_SIGSEGV)
    // Replay: stand-ins for the recorded inherited descriptors (LaunchOptions::stand_ins); none: hermit's.
    std::optional<std::vector<InheritedDescriptor>> stand_ins;
    // Replay: the guest's stdin (LaunchOptions::stdin_file); -1: hermit's.
    int stdin_file = -1;
    uint64_t stdin_offset = 0;
    std::vector<int> null_outputs;       // LaunchOptions::null_outputs
    std::vector<FileOverlay> overlays;   // LaunchOptions::overlays
    std::vector<std::string> own_mounts; // LaunchOptions::own_mounts
    // What the guest writes under this directory goes to a throwaway layer (with namespaces; AbsentPaths).
    std::string throwaway_directory;
    std::function<void(pid_t)> before_exec; // LaunchOptions::before_exec
    // run and record: the guest is the terminal's foreground job (TerminalForeground.h), and SIGINT,
    // SIGTERM and SIGHUP sent to hermit go to the guest's process group, as a terminal sends them (a second
    // one kills it). A replay (false) takes its inputs from the recording and ends on them instead.
    bool interactive = true;
};

class Session {
public:
    explicit Session(SessionOptions options);
    ~Session(); // kills any guest process still alive
    Session(const Session&) = delete;
    Session& operator=(const Session&) = delete;

    // Call before run(). Interceptors and sinks are not owned and must outlive run().
    void add_interceptor(SyscallInterceptor* interceptor);
    void add_event_sink(EventSink* sink);
    void set_schedule_policy(std::unique_ptr<SchedulePolicy> policy);

    // Starts the guest and runs it to completion. Returns the shell-style exit status of the initial
    // process: its exit code, or 128+N when a signal N killed it. Throws hermit::Error (E003, E004, E01x).
    int run();

    // The termination signal that made hermit end the guest outright (a second one in an interactive run,
    // the first otherwise), 0 if none.
    int terminated_by() const;

    // The run's logical clock, in ns since the epoch of the run. Every emitted event first advances it by
    // kEventTimeStepNs and carries the new value as Event::time; interceptors that model the passage of
    // time (emulated sleeps) advance it further. It never depends on the host's clock.
    static constexpr uint64_t kEventTimeStepNs = 1000;
    uint64_t logical_time_ns() const;
    void advance_logical_time(uint64_t ns);
    // Replaces the built-in clock: Event::time is then `now()` at each event (the Virtualizer's clock).
    void set_time_source(std::function<uint64_t()> now);
    // The guest's virtual clock (the Virtualizer's): a timed wait that would wait then times out at once
    // and advances this clock by its timeout, instead of sleeping on the host's clock. Not owned.
    void set_virtual_clock(virt::VirtualClock* clock);
    // Timers on that clock (alarm, setitimer): fired at scheduling points, and virtual time jumps to the
    // next deadline when every thread waits. Not owned.
    void set_timer_source(TimerSource* timers);
    // Lets a debugger handle the guest's SIGTRAPs, signals and ends (tracer/DebugHook.h); call before run().
    // Not owned. `stop_requests`, when not -1, is an eventfd the debugger writes to from any thread to have
    // the guest stopped (Ctrl-C in gdb): the running thread is interrupted and the hook's on_interrupt()
    // called with it stopped.
    void set_debug_hook(DebugHook* hook, int stop_requests = -1);
    // For a debugger, during a DebugHook call (a diversion: gdb calls a function in the guest): continues
    // `task` alone with `request` (PTRACE_CONT or PTRACE_SINGLESTEP), the other threads staying stopped,
    // and waits for its next stop other than a seccomp stop or a notification: those syscalls run in the
    // kernel, outside the schedule, the recording and the replay. A process or thread it makes is killed
    // at once, and its PTRACE_EVENT_FORK/VFORK/CLONE stop returned: the new task took a pid of the guest's
    // namespace, which only a new run of the guest gives back. Returns the wait status.
    int run_alone_untraced(Task& task, int request);

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace hermit::tracer
