#pragma once
// Replayer: the interceptor and event sink that make a Session re-execute a recording. It must be the
// first interceptor of the Session (before the Virtualizer), so it sees every trapped syscall at entry:
//   - each trapped syscall must be the next recorded event (same thread, number and arguments), else
//     the replay has diverged (hermit::Error ReplayDesync, exit 4);
//   - syscalls that read the outside world are emulated from the log (recorded result and memory writes);
//   - opens run for real, redirected to the recording's copy of a file that is missing or changed, and
//     files the guest writes are private copies in a scratch directory: a replay never changes the
//     user's files (names are changed only in the log: ChangePath syscalls are emulated, and the
//     symlinks and directories the guest made are kept in MadeNames, through which its paths resolve);
//   - writes run for real on inherited descriptors and are emulated on the guest's own pipes and sockets;
//   - everything that shapes the process (mmap, clone, futex, ...) runs for real and its result is
//     compared with the recorded one when its event arrives.
// Every event the Session emits is compared with the recorded event at the replay position; the
// RecordedSchedulePolicy, reading the same ReplayLog, reproduces the recorded schedule.
//
// This is the forward-only replay engine: a debugger target steps it with stop_at_event(); where in time
// to go (checkpoints, reverse execution) is the caller's business.

#include "GuestDescriptors.h"
#include "MadeNames.h"
#include "ReplayLog.h"
#include "formats/Recording.h"
#include "tracer/EventSink.h"
#include "tracer/ScratchDirectory.h"
#include "tracer/SyscallInterceptor.h"

#include <array>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

namespace hermit::replay {

class Replayer : public tracer::SyscallInterceptor, public tracer::EventSink {
public:
    // The guest is stopped at a syscall entry at replay position `event_index`.
    using StopHandler = std::function<void(uint64_t event_index, tracer::Task& task)>;

    // `reader` (for the recorded files) and `log` must outlive the replayer. `followers` are the
    // interceptors added after the replayer (the Virtualizer): when the replayer emulates a syscall they
    // are not asked, so it shows them the syscall anyway (on_entry_answered_in_front), because during
    // recording they saw it (the Virtualizer's clock ticks at every syscall it sees).
    Replayer(const RecordingReader& reader, ReplayLog& log,
             std::vector<tracer::SyscallInterceptor*> followers);
    ~Replayer() override; // removes the executables' copies
    Replayer(const Replayer&) = delete;
    Replayer& operator=(const Replayer&) = delete;

    std::set<int> trapped_syscalls() const override;
    std::set<int> notifiable_syscalls() const override;
    // Not once asked to stop at an event (stop_at_event): the handler may need the thread stopped.
    bool answers_without_stop(tracer::Task& task, const tracer::SyscallStop& stop) const override;
    // What the syscall buffer's library makes from its call site while replaying (replay_call_site_syscalls).
    std::set<int> buffered_syscalls() const override;
    tracer::SyscallDecision on_entry(tracer::Task& task, const tracer::SyscallStop& stop) override;
    void on_buffered_syscall(tracer::Task& task, const SyscallEvent& call) override;
    // Places the recorded calls the thread makes next in its syscall buffer, if any (SyscallBuffer.h).
    void on_resume(tracer::Task& task) override;
    void on_event(const Event& event) override;

    // Calls `handler` once, at the first syscall entry at or after replay position `event_index`.
    void stop_at_event(uint64_t event_index, StopHandler handler);
    uint64_t position() const { return log_.position(); }
    // Writes to hermit's own stdout/stderr before replay position `event_index` are checked but not
    // performed: a debugger that replays the recording again to go back in time has shown them already.
    void silence_output_before(uint64_t event_index) { silent_before_ = event_index; }

    // After the Session finished: every recorded event must have been reproduced and the exit status
    // must match. Throws ReplayDesync otherwise.
    void check_finished(int recorded_exit_status, int replayed_exit_status) const;

private:
    struct PendingSyscall {
        bool retried = false;
        bool redirected = false; // opened or executed a copy (SyscallDecision::replace_path)
        std::optional<std::vector<uint8_t>> written_bytes; // a real write to hermit's stdout/stderr
    };

    const SyscallEvent& expect_syscall(tracer::Task& task, const tracer::SyscallStop& stop);
    // A thread parked in pause/rt_sigsuspend when recorded was woken by a signal from outside, which came
    // while it waited: it is made pending now, so the replayed thread becomes runnable too.
    void send_signal_that_ends_wait(tracer::Task& task, const tracer::SyscallStop& stop);
    tracer::SyscallDecision seek(tracer::Task& task, const tracer::SyscallStop& stop,
                                 const SyscallEvent& recorded);
    tracer::SyscallDecision emulate_input(tracer::Task& task, const tracer::SyscallStop& stop,
                                          const SyscallEvent& recorded);
    tracer::SyscallDecision open_file(tracer::Task& task, const tracer::SyscallStop& stop,
                                      const SyscallEvent& recorded, PendingSyscall& pending);
    // The absolute path named by a path argument (relative to the dirfd argument, -1 for the cwd).
    std::string guest_path_argument(tracer::Task& task, const tracer::SyscallStop& stop, size_t path_argument,
                                    int dirfd_argument) const;
    // The absolute path `guest_path` names, relative to `dirfd`; empty when it cannot be told.
    std::string guest_path(tracer::Task& task, const std::optional<std::string>& guest_path, int dirfd) const;
    // The dirfd argument of `args` (-1: none, AT_FDCWD).
    static int dirfd_of(std::span<const uint64_t> args, int dirfd_argument);
    // The file an open or exec names, symlinks resolved (the last one unless `follow_last` is false), as
    // the recorder names its copies (from /proc/<pid>/fd).
    MadeNames::Resolved resolved_path_argument(tracer::Task& task, const tracer::SyscallStop& stop,
                                               bool follow_last = true) const;
    // The private file the library opens in place of the new file a buffered openat made when recorded
    // (hermit_buffer_creates_new_file), placed where the replay has not yet taken in `names_changed`
    // (MadeNames entries); none when the open must stop the thread instead.
    std::optional<std::filesystem::path> new_file_instead(tracer::Task& task, const SyscallEvent& call,
                                                          const std::vector<std::string>& names_changed);
    // Whether an open of `absolute_path` gets a private copy: a regular file the guest writes, or whose
    // copy in the recording was written by some open (the others read the original while it is the same).
    bool gets_scratch_file(const std::string& absolute_path, uint64_t flags) const;
    const RecordedFile* recorded_copy(const std::string& absolute_path) const;
    // A new name in the scratch directory (made on first use).
    std::filesystem::path new_scratch_path();
    // Writes the recorded copy of `file` to the new file `destination`.
    void extract_copy(const RecordedFile& file, const std::filesystem::path& destination) const;
    // A private copy of a file the guest opens, from the recorded copy when there is one.
    std::filesystem::path make_scratch_file(const std::string& absolute_path, uint64_t flags);
    // The stand-in of a directory the guest made and now opens (made on its first open).
    std::filesystem::path directory_stand_in(const std::string& directory);
    // Runs the replay's copy of a program the guest built or that changed since the recording.
    tracer::SyscallDecision execute_file(tracer::Task& task, const tracer::SyscallStop& stop,
                                         PendingSyscall& pending);
    // chdir into a directory the guest made goes into its stand-in; one that failed when recorded fails.
    tracer::SyscallDecision change_directory(tracer::Task& task, const tracer::SyscallStop& stop,
                                             const SyscallEvent& recorded, PendingSyscall& pending);
    // A copy of `program` for execve whose path has `path_length` characters, when that can be made.
    std::filesystem::path executable_copy(const std::filesystem::path& program, size_t path_length);
    // The syscall opens or executes `replacement` instead, when there is one; `absolute` itself when the
    // guest's path is relative to the stand-in of a directory the guest made (the kernel would take ".."
    // to the stand-in's parent).
    tracer::SyscallDecision redirect_path(tracer::Task& task, const tracer::SyscallStop& stop,
                                          const std::string& absolute,
                                          std::optional<std::filesystem::path> replacement,
                                          PendingSyscall& pending);
    // The syscall's path argument is relative to a stand-in (the cwd or its dirfd).
    bool relative_to_stand_in(tracer::Task& task, const tracer::SyscallStop& stop) const;
    // Where the kernel starts a relative path: the host path of the cwd (AT_FDCWD) or of `dirfd`.
    static std::string start_directory(tracer::Task& task, int dirfd);
    // The path argument at an index: read from the guest at a syscall's stop, or carried by the event of a
    // call made in the syscall buffer.
    using PathArgument = std::function<std::optional<std::string>(size_t argument)>;
    // Keeps the scratch copies and the made names in step with a name change that succeeded when recorded.
    void change_path(tracer::Task& task, int number, std::span<const uint64_t> args,
                     const PathArgument& path);
    // A recorded link(`from`, `to`): both name the same scratch copy, or `to` the same symlink.
    void link(const std::string& from, const std::string& to);
    // A recorded unlink or rmdir of `path`.
    void remove_name(const std::string& path);
    tracer::SyscallDecision write(tracer::Task& task, const tracer::SyscallStop& stop,
                                  const SyscallEvent& recorded, PendingSyscall& pending);
    // What to open instead of the guest's path: the recorded copy when the original is missing or changed,
    // the resolved path when the kernel would have to pass a symlink the guest made.
    std::optional<std::filesystem::path> replacement_for(const MadeNames::Resolved& resolved);
    bool is_inherited(pid_t host_pid, int fd) const;
    tracer::SyscallDecision emulate(tracer::Task& task, const tracer::SyscallStop& stop, int64_t result);
    void compare(uint64_t index, const Event& recorded, const Event& replayed, const PendingSyscall* pending,
                 bool redirected_exec) const;
    // A write to hermit's stdout or stderr: its bytes must be the recorded output (E040 before they reach
    // the user's terminal or file). take_output() then consumes the recorded StdioEvent.
    void check_output_before_it_is_written(int32_t tid, const PendingSyscall& pending) const;
    void take_output(const Event& replayed);

    const RecordingReader& reader_;
    ReplayLog& log_;
    std::vector<tracer::SyscallInterceptor*> followers_;
    std::vector<std::optional<ObjectIdentity>> own_descriptors_;               // hermit's 0, 1, 2
    std::map<std::string, std::optional<std::filesystem::path>> replacements_; // absolute path -> copy
    std::unordered_map<std::string, const RecordedFile*> recorded_copies_;     // reader_'s, by guest path
    std::map<int32_t, PendingSyscall> pending_;                                // by guest tid
    tracer::ScratchDirectory scratch_directory_{"replay"};                     // created on first use
    std::map<std::string, std::filesystem::path> scratch_files_;               // guest path -> private copy
    MadeNames made_names_;
    uint64_t scratch_count_ = 0;
    std::vector<std::filesystem::path> executable_copies_; // removed with the replayer
    std::optional<uint64_t> signal_sent_at_;               // replay position of the outside signal last sent
    std::optional<uint64_t> stop_index_;
    std::map<int32_t, uint64_t> placed_; // by guest tid: the first event placed in its syscall buffer
    uint64_t silent_before_ = 0;
    StopHandler stop_handler_;
};

} // namespace hermit::replay
