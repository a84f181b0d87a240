#pragma once
// FileMetadata: what the guest sees of files' metadata, for the Virtualizer. Stats are answered in the
// tracer where it can (StatInTracer) or rewritten at their exit (StatRewriter: virtual device and inodes,
// the times FileTimes shows); directory listings get the same virtual inodes; times a guest sets are
// noted; and a replay, which shows the recorded answers, moves the clock's file time as they did.

#include "FileTimes.h"
#include "InodeTable.h"
#include "StatInTracer.h"
#include "StatRewriter.h"

#include "tracer/SyscallInterceptor.h"

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class FileMetadata {
public:
    // Files changed since `changes_since_ns` (host time) are the run's; without it, since the coarse wall
    // clock's next tick, which this waits for (a few ms at most): see FileTimes and the .cc.
    FileMetadata(VirtualClock& clock, std::optional<int64_t> changes_since_ns);
    int64_t changes_since_ns() const { return changes_since_ns_; }

    // utimensat, futimesat, utimes and utime.
    static bool sets_file_times(int number);

    // A stat-family syscall at its entry, the clock already moved: answered here, or a stop at its exit.
    SyscallDecision emulate_stat(Task& task, const SyscallStop& stop);
    // At the exit of a stat the tracer did not answer, or of getdents64 (`result` bytes).
    void rewrite_stat_result(Task& task, const SyscallStop& stop);
    void rewrite_directory_entries(Task& task, const SyscallStop& stop, int64_t result);
    // A replay answered the stat with the recorded `result` (its bytes are in the guest's memory).
    void on_recorded_stat(Task& task, const SyscallStop& stop, int64_t result);
    // At the entry of a syscall that sets file times (FileTimes::on_times_set when it gives values).
    void on_set_file_times(Task& task, const SyscallStop& stop);
    // At every exec; the first is the guest's: the files it inherits open (its stdout redirected to a file
    // made just before the run) are where the caller takes its output, not inputs (FileTimes::not_input).
    void on_exec(Task& task);

private:
    template <typename Status> void rewrite_stat_at(Task& task, uint64_t address);

    VirtualClock& clock_;
    int64_t changes_since_ns_;
    bool guest_started_ = false;
    InodeTable inodes_;
    FileTimes times_;
    StatRewriter rewriter_;
    StatInTracer in_tracer_;
};

} // namespace hermit::tracer::virt
