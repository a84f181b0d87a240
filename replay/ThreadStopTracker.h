#pragma once
// ThreadStopTracker: remembers, for each guest thread, its host tid and the trapped syscall it last
// stopped at. A thread that is not running sits at its last scheduling point, so this is where it stands
// while a schedule decision is made (`hermit analyze` unwinds its stack there). It only watches: every
// syscall is passed on to the next interceptor.

#include "tracer/SyscallInterceptor.h"

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>

namespace hermit::replay {

class ThreadStopTracker : public tracer::SyscallInterceptor {
public:
    std::set<int> trapped_syscalls() const override { return {}; }
    tracer::SyscallDecision on_entry(tracer::Task& task, const tracer::SyscallStop& stop) override;
    void on_exec(tracer::Task& task) override;

    // The host tid of a guest thread; threads that have not stopped at a syscall yet are looked up in
    // /proc among the threads of the guest processes seen so far. 0 when unknown.
    pid_t host_tid(int32_t guest_tid) const;
    // The syscall number the thread last stopped at, or nullopt when it has not made a trapped syscall.
    std::optional<int> last_syscall(int32_t guest_tid) const;

private:
    void remember(const tracer::Task& task);

    std::map<int32_t, pid_t> host_tids_;
    std::map<int32_t, int> last_syscalls_;
    std::set<pid_t> host_processes_;
};

} // namespace hermit::replay
