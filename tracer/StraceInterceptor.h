#pragma once
// StraceInterceptor: `hermit run --strace-only`. Traps every syscall, never changes one, and prints each
// as strace -f does when it completes: the arguments the kernel reads are rendered at entry, the
// outputs and the result at exit. Once a second thread has appeared every line gets a "[pid N]" prefix
// with the guest-visible thread id. Added as an EventSink too, it prints signals and thread exits
// ("--- SIGUSR1 {...} ---", "+++ exited with 0 +++").

#include "EventSink.h"
#include "SyscallFormatter.h"
#include "SyscallInterceptor.h"

#include <cstdint>
#include <cstdio>
#include <map>
#include <set>
#include <string>

namespace hermit::tracer {

class StraceInterceptor : public SyscallInterceptor, public EventSink {
public:
    // Prints to `output` (for example stderr), which is not owned and must outlive the interceptor.
    explicit StraceInterceptor(FILE* output, SyscallFormatOptions options = {});
    // Creates or truncates `path` (--strace-file). Throws hermit::Error(E019) when it cannot be opened.
    explicit StraceInterceptor(const std::string& path, SyscallFormatOptions options = {});
    // Prints the calls that never completed (their thread died inside them) and closes an owned file.
    ~StraceInterceptor() override;
    StraceInterceptor(const StraceInterceptor&) = delete;
    StraceInterceptor& operator=(const StraceInterceptor&) = delete;

    std::set<int> trapped_syscalls() const override { return {kAllSyscalls}; }
    SyscallDecision on_entry(Task& task, const SyscallStop& stop) override;
    void on_exit(Task& task, const SyscallStop& stop, int64_t& result) override;
    void on_event(const Event& event) override;

private:
    void print(int32_t tid, const std::string& line);

    SyscallFormatter formatter_;
    FILE* output_;
    bool owns_output_;
    std::map<int32_t, PendingSyscall> pending_; // by guest tid
    std::set<int32_t> threads_seen_;
    std::map<int32_t, int> fatal_signals_; // by guest tid: the signal that will kill the thread
};

} // namespace hermit::tracer
