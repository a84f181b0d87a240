#pragma once
// Session: the guest process tree of one `hermit run` (or record, or replay) and the ptrace event loop
// that drives it. Exactly one guest thread runs at a time while deterministic scheduling is on; the others
// stay ptrace-stopped. Interceptors act on trapped syscalls, sinks receive every event, and the schedule
// policy picks who runs next at each scheduling point.

#include "EventSink.h"
#include "SchedulePolicy.h"
#include "SyscallInterceptor.h"

#include <memory>
#include <string>
#include <vector>

namespace hermit::tracer {

struct SessionOptions {
    std::vector<std::string> argv;      // argv[0] is looked up in PATH
    std::vector<std::string> env;       // the guest's whole environment
    std::string cwd;                    // empty: hermit's cwd
    bool namespaces = true;             // fresh user/pid/mount/uts namespaces
    bool deterministic_scheduling = true; // one thread at a time
    bool disable_aslr = true;
    bool trap_cpuid = true;             // arch_prctl(ARCH_SET_CPUID, 0) when the host supports it
    bool trap_rdtsc = true;             // prctl(PR_SET_TSC, PR_TSC_SIGSEGV)
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

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace hermit::tracer
