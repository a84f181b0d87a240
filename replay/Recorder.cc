#include "Recorder.h"

#include "RecordedSyscalls.h"
#include "tracer/SyscallTable.h"
#include "tracer/Task.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <string_view>

namespace hermit::replay {

namespace {

// Files under these directories belong to the system, not to the program's input: replay expects them
// unchanged and does not copy them.
bool in_system_directory(const std::string& path) {
    constexpr std::array<std::string_view, 7> kSystemDirectories = {"/usr/",  "/lib/", "/lib64/", "/etc/",
                                                                    "/proc/", "/sys/", "/dev/"};
    return std::any_of(kSystemDirectories.begin(), kSystemDirectories.end(),
                       [&](std::string_view directory) { return path.starts_with(directory); });
}

std::vector<uint8_t> gather_written_bytes(tracer::GuestMemory& memory, const tracer::SyscallStop& stop,
                                          uint64_t length) {
    std::vector<uint8_t> bytes;
    if (stop.number == SYS_write) {
        bytes = memory.read_bytes(stop.args[1], length).value_or(std::vector<uint8_t>{});
        return bytes;
    }
    // writev: the bytes come from the iovecs in order until `length` is reached.
    for (uint64_t index = 0; index < stop.args[2] && bytes.size() < length; index++) {
        auto vector = memory.read_value<iovec>(stop.args[1] + index * sizeof(iovec));
        if (!vector) {
            break;
        }
        uint64_t take = std::min<uint64_t>(vector->iov_len, length - bytes.size());
        auto part = memory.read_bytes(reinterpret_cast<uint64_t>(vector->iov_base), take);
        if (!part) {
            break;
        }
        bytes.insert(bytes.end(), part->begin(), part->end());
    }
    return bytes;
}

} // namespace

Recorder::Recorder(RecordingWriter& writer)
    : writer_(writer), own_stdout_(GuestDescriptors::own_identity(1)),
      own_stderr_(GuestDescriptors::own_identity(2)) {}

std::set<int> Recorder::trapped_syscalls() const {
    return recorded_syscalls();
}

tracer::SyscallDecision Recorder::on_entry(tracer::Task& task, const tracer::SyscallStop& stop) {
    host_pids_[task.pid()] = task.host_pid();
    PendingSyscall& pending = pending_[task.tid()];
    pending = PendingSyscall{};
    pending.number = stop.number;
    const int fd = static_cast<int>(stop.args[0]);
    if (waits_for_input(stop.number) && descriptors_.read_would_wait(task.host_pid(), fd)) {
        return retry_later(task, pending);
    }
    if ((stop.number == SYS_write || stop.number == SYS_writev) &&
        descriptors_.write_would_wait(task.host_pid(), fd, stop.number == SYS_write ? stop.args[2] : 1)) {
        return retry_later(task, pending);
    }
    return replay_treatment(stop.number) == ReplayTreatment::NotRecorded
               ? tracer::SyscallDecision::pass()
               : tracer::SyscallDecision::stop_at_exit();
}

void Recorder::on_exit(tracer::Task& task, const tracer::SyscallStop& stop, int64_t& result) {
    auto pending = pending_.find(task.tid());
    if (pending == pending_.end() || pending->second.retried) {
        return;
    }
    switch (replay_treatment(stop.number)) {
    case ReplayTreatment::EmulateFromLog:
        pending->second.memory_writes = capture_outputs(task, stop, result);
        break;
    case ReplayTreatment::OpenFile:
        copy_opened_file(task, stop, result);
        break;
    case ReplayTreatment::Write:
        pending->second.stdio = capture_stdio(task, stop, result);
        break;
    case ReplayTreatment::NotRecorded:
        break;
    }
}

tracer::SyscallDecision Recorder::retry_later(tracer::Task& task, PendingSyscall& pending) {
    auto last = last_retry_progress_.find(task.tid());
    if (last != last_retry_progress_.end() && last->second == progress_) {
        // Nobody got further since this thread last retried: no guest thread can provide the input, only
        // the outside world can. Wait for it in the kernel.
        return tracer::SyscallDecision::pass();
    }
    last_retry_progress_[task.tid()] = progress_;
    pending.retried = true;
    // The guest re-executes its syscall instruction when it next runs: rip goes back over it and the
    // emulated "result" put in rax is the syscall number itself.
    user_regs_struct registers = task.registers();
    registers.rip -= 2;
    task.set_registers(registers);
    tracer::SyscallDecision decision = tracer::SyscallDecision::emulate(pending.number);
    decision.yield = true;
    return decision;
}

void Recorder::on_event(const Event& event) {
    Event recorded = event;
    std::optional<StdioEvent> stdio;
    if (auto* syscall = std::get_if<SyscallEvent>(&recorded.payload)) {
        auto pending = pending_.find(event.tid);
        if (pending != pending_.end() && pending->second.number == syscall->number) {
            if (pending->second.retried) {
                syscall->result = kRetriedSyscallResult;
            } else if (!syscall->emulated) {
                // What the Virtualizer produced is recomputed on replay; only the outside world's is kept.
                syscall->memory_writes = std::move(pending->second.memory_writes);
            }
            stdio = std::move(pending->second.stdio);
            pending_.erase(pending);
        }
        if (syscall->result != kRetriedSyscallResult) {
            progress_++;
        }
    } else if (!std::holds_alternative<ScheduleEvent>(recorded.payload)) {
        progress_++;
    }
    if (auto* exit = std::get_if<ThreadExitEvent>(&recorded.payload)) {
        pending_.erase(event.tid);
        last_retry_progress_.erase(event.tid);
        if (exit->process_exit) {
            auto host_pid = host_pids_.find(event.pid);
            if (host_pid != host_pids_.end()) {
                descriptors_.forget(host_pid->second);
                host_pids_.erase(host_pid);
            }
        }
    }
    last_event_time_ = std::max(last_event_time_, event.time);
    writer_.append(recorded);
    if (stdio) {
        writer_.append(Event{event.time, event.tid, event.pid, std::move(*stdio)});
    }
}

std::vector<MemoryWrite> Recorder::capture_outputs(tracer::Task& task, const tracer::SyscallStop& stop,
                                                   int64_t result) {
    std::vector<MemoryWrite> writes;
    const tracer::SyscallRow* row = tracer::find_syscall(stop.number);
    if (row == nullptr || result < 0) {
        return writes;
    }
    for (const tracer::OutputRange& range : tracer::syscall_outputs(*row, stop.args, result, task)) {
        auto bytes = task.read_bytes(range.address, range.length);
        if (!bytes) {
            spdlog::warn("recorder: cannot read {} bytes written by {} at {:#x}", range.length, row->name,
                         range.address);
            continue;
        }
        writes.push_back(MemoryWrite{range.address, std::move(*bytes)});
    }
    return writes;
}

void Recorder::copy_opened_file(tracer::Task& task, const tracer::SyscallStop& stop, int64_t result) {
    const uint64_t flags = stop.number == SYS_open ? stop.args[1] : stop.args[2];
    if (result < 0 || stop.number == SYS_openat2 || (flags & O_ACCMODE) != O_RDONLY) {
        return;
    }
    const int fd = static_cast<int>(result);
    auto path = GuestDescriptors::path(task.host_pid(), fd);
    if (!path || !path->starts_with("/") || in_system_directory(*path) || copied_files_.contains(*path)) {
        return;
    }
    const std::string host_path = "/proc/" + std::to_string(task.host_pid()) + "/fd/" + std::to_string(fd);
    struct stat info {};
    if (stat(host_path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        return;
    }
    copied_files_.insert(*path);
    writer_.add_file(*path, host_path);
}

std::optional<StdioEvent> Recorder::capture_stdio(tracer::Task& task, const tracer::SyscallStop& stop,
                                                  int64_t result) {
    if (result <= 0 || (stop.number != SYS_write && stop.number != SYS_writev)) {
        return std::nullopt;
    }
    auto target = GuestDescriptors::identity(task.host_pid(), static_cast<int>(stop.args[0]));
    if (!target) {
        return std::nullopt;
    }
    int32_t fd = 0;
    if (target == own_stdout_ && (stop.args[0] != 2 || target != own_stderr_)) {
        fd = 1;
    } else if (target == own_stderr_) {
        fd = 2;
    } else {
        return std::nullopt;
    }
    return StdioEvent{fd, gather_written_bytes(task, stop, static_cast<uint64_t>(result))};
}

} // namespace hermit::replay
