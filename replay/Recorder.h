#pragma once
// Recording: a deterministic run of the guest (the same Session and Virtualizer as `hermit run`) plus the
// capture of everything that cannot be recomputed on replay: results and memory outputs of syscalls that
// read the outside world, the schedule, signals, rdtsc/cpuid answers and the guest's stdout/stderr.

#include "GuestDescriptors.h"
#include "formats/Recording.h"
#include "tracer/EventSink.h"
#include "tracer/SyscallInterceptor.h"
#include "tracer/Task.h"

#include <unistd.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hermit::replay {

struct RecordOptions {
    std::string name;              // id hint; empty: the basename of argv[0]
    std::vector<std::string> argv; // the guest command
    RunConfig config;              // seed, epoch, strict, chaos/heuristic, namespaces: stored in the meta
};

// `hermit record start`: records the guest into a new directory of the RecordingStore (from the
// environment), marks it `latest`, prints "hermit: recorded <id> (N events) in <dir>" on stderr and returns
// the guest's shell-style exit status. Throws hermit::Error like `hermit run`.
int record_start(const RecordOptions& options);

// Recorder: an interceptor and event sink that appends every event of the run to a RecordingWriter,
// completing syscall events with the memory they wrote and adding StdioEvents for hermit's stdout/stderr.
// It must be the first interceptor of the Session (before the Virtualizer): it asks for the exit of the
// syscalls whose outputs it keeps, so its on_exit runs last and sees the virtualized outputs. Reads and
// writes that would wait are parked by the Session (tracer/WaitPredictor.h) and recorded as retried
// (SyscallEvent::kRetried), so that every wait of the guest is anchored to an event of the recording.
class Recorder : public tracer::SyscallInterceptor, public tracer::EventSink {
public:
    explicit Recorder(RecordingWriter& writer);

    std::set<int> trapped_syscalls() const override;
    std::set<int> notifiable_syscalls() const override;
    std::set<int> buffered_syscalls() const override;
    tracer::SyscallDecision on_entry(tracer::Task& task, const tracer::SyscallStop& stop) override;
    void on_opened_for_guest(tracer::Task& task, const tracer::SyscallStop& stop, int file,
                             const tracer::OpenedFileInfo& info) override;
    void on_exit(tracer::Task& task, const tracer::SyscallStop& stop, int64_t& result) override;
    // A new file the library made (hermit_buffer_creates_new_file) is the guest's: never copied.
    void on_buffered_syscall(tracer::Task& task, const SyscallEvent& call) override;
    void on_event(const Event& event) override;
    // The events so far go to disk: a recording stopped while its guest waits (a server killed) keeps them.
    void on_guest_waits() override;

    // Time of the latest event: the guest's logical duration when the run is over.
    uint64_t last_event_time() const { return last_event_time_; }

private:
    // A syscall between its entry and its event: what on_exit captured for the event.
    struct PendingSyscall {
        int number = 0;
        // An open the Virtualizer serves from a file it generates (/dev/urandom, ...): replay generates the
        // same file from the seed, so it is not copied.
        bool virtual_file = false;
        std::vector<MemoryWrite> memory_writes;
        std::optional<StdioEvent> stdio;
    };

    std::vector<MemoryWrite> capture_outputs(tracer::Task& task, const tracer::SyscallStop& stop,
                                             int64_t result);
    // The file behind descriptor `fd` of process `owner`: the guest's, or hermit's own before the guest
    // has it.
    void copy_opened_file(tracer::Task& task, const tracer::SyscallStop& stop, pid_t owner, int fd,
                          const tracer::OpenedFileInfo& file);
    // A file the recording copied, by its device and inode: the names it was copied under, and whether the
    // guest wrote it (an open for writing, a truncate) by any name.
    struct CopiedFile {
        std::set<std::string> names;
        bool written = false;
    };
    void mark_written(CopiedFile& copied);
    // A truncate(2) by path writes its file as an open for writing would.
    void note_truncated_file(tracer::Task& task, const tracer::SyscallStop& stop);
    // The program an execve starts, unless it is a system file: replay may need it after it changed.
    void copy_executed_file(tracer::Task& task, const tracer::SyscallStop& stop);
    std::optional<StdioEvent> capture_stdio(tracer::Task& task, const tracer::SyscallStop& stop,
                                            int64_t result);

    RecordingWriter& writer_;
    const pid_t own_pid_ = getpid(); // hermit's, whose descriptors on_opened_for_guest() sees
    std::optional<ObjectIdentity> own_stdout_;
    std::optional<ObjectIdentity> own_stderr_;
    std::map<int32_t, PendingSyscall> pending_; // by guest tid: trapped, its event not yet seen
    std::set<std::string> copied_files_;
    std::map<std::pair<dev_t, ino_t>, CopiedFile> copied_by_identity_;
    uint64_t last_event_time_ = 0;
};

} // namespace hermit::replay
