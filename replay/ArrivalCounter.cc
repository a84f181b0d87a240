#include "ArrivalCounter.h"

#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hermit::replay {

namespace {

int open_event(pid_t host_tid, uint64_t address, uint64_t period) {
    perf_event_attr attributes{};
    attributes.type = PERF_TYPE_BREAKPOINT;
    attributes.size = sizeof attributes;
    attributes.bp_type = HW_BREAKPOINT_X;
    attributes.bp_addr = address;
    attributes.bp_len = sizeof(long);
    attributes.exclude_kernel = 1;
    attributes.exclude_hv = 1;
    if (period > 0) {
        attributes.sample_period = period;
        attributes.sigtrap = 1;
        attributes.remove_on_exec = 1; // required with sigtrap; an exec ends the count anyway
    }
    return static_cast<int>(
        syscall(SYS_perf_event_open, &attributes, host_tid, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

uint64_t read_count(int event) {
    uint64_t count = 0;
    return read(event, &count, sizeof count) == sizeof count ? count : 0;
}

__attribute__((noinline)) void probe_target() {
    asm volatile("" ::: "memory");
}

// A traced child calls probe_target() three times; an event limited to 2 must stop it at the second.
bool probe() {
    const pid_t child = fork();
    if (child < 0) {
        return false;
    }
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        raise(SIGSTOP);
        for (int call = 0; call < 3; ++call) {
            probe_target();
        }
        _exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    const auto address = reinterpret_cast<uint64_t>(&probe_target);
    const int event = open_event(child, address, 2);
    bool stopped_at_limit = false;
    if (event >= 0) {
        ptrace(PTRACE_CONT, child, nullptr, 0);
        waitpid(child, &status, 0);
        siginfo_t info{};
        stopped_at_limit = WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
                           ptrace(PTRACE_GETSIGINFO, child, nullptr, &info) == 0 &&
                           info.si_code == kTrapPerf && read_count(event) == 2;
        close(event);
    }
    kill(child, SIGKILL);
    waitpid(child, &status, 0);
    return stopped_at_limit;
}

} // namespace

bool ArrivalCounter::available() {
    static const bool counts = probe();
    return counts;
}

ArrivalCounter::ArrivalCounter(uint64_t address, std::optional<uint64_t> limit)
    : address_(address), limit_(limit) {}

ArrivalCounter::~ArrivalCounter() {
    for (const auto& [tid, event] : events_) {
        close(event);
    }
}

void ArrivalCounter::discount_next_fire(pid_t host_tid) {
    discounted_ = host_tid;
}

bool ArrivalCounter::prepare(pid_t host_tid) {
    if (auto open = events_.find(host_tid); open != events_.end()) {
        closed_count_ += static_cast<int64_t>(read_count(open->second));
        close(open->second);
        events_.erase(open);
    }
    if (discounted_ == host_tid) {
        discounted_ = 0;
        --closed_count_;
    }
    uint64_t period = 0;
    if (limit_) {
        const int64_t left = static_cast<int64_t>(*limit_) - closed_count_;
        period = left > 0 ? static_cast<uint64_t>(left) : 1;
    }
    const int event = open_event(host_tid, address_, period);
    if (event < 0) {
        return false;
    }
    events_[host_tid] = event;
    return true;
}

uint64_t ArrivalCounter::arrivals() const {
    int64_t total = closed_count_;
    for (const auto& [tid, event] : events_) {
        total += static_cast<int64_t>(read_count(event));
    }
    return total > 0 ? static_cast<uint64_t>(total) : 0;
}

} // namespace hermit::replay
