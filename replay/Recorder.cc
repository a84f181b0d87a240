#include "Recorder.h"

#include "GuestFileIo.h"
#include "RecordedSyscalls.h"
#include "tracer/ProcFs.h"
#include "tracer/SyscallBuffer.h"
#include "tracer/SyscallTable.h"
#include "tracer/Task.h"
#include "tracer/Virtualizer.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

namespace hermit::replay {

namespace {

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

std::set<int> Recorder::notifiable_syscalls() const {
    return notifiable_recorded_syscalls();
}

std::set<int> Recorder::buffered_syscalls() const {
    return tracer::syscall_buffer::call_site_syscalls();
}

tracer::SyscallDecision Recorder::on_entry(tracer::Task& task, const tracer::SyscallStop& stop) {
    if (stop.number == tracer::syscall_buffer::kRegisterSyscall) {
        return tracer::SyscallDecision::emulate(
            tracer::syscall_buffer::register_buffer(task, stop, tracer::syscall_buffer::Mode::Record));
    }
    if (asks_about_system_file(task, stop)) {
        return tracer::SyscallDecision::untraced();
    }
    PendingSyscall& pending = pending_[task.tid()];
    pending = PendingSyscall{};
    pending.number = stop.number;
    if (replay_treatment(stop.number) == ReplayTreatment::Execute) {
        copy_executed_file(task, stop);
    }
    if (replay_treatment(stop.number) == ReplayTreatment::OpenFile) {
        pending.virtual_file = tracer::Virtualizer::opened_virtual_file(task, stop).has_value();
    }
    // hermit's own stdout/stderr (when they are files) need their StdioEvent, from the exit stop.
    auto not_own_stdio = [this](const ObjectIdentity& file) {
        return file != own_stdout_ && file != own_stderr_;
    };
    if (auto done = GuestFileIo::perform(task, stop, not_own_stdio)) {
        pending.memory_writes = std::move(done->outputs);
        return tracer::SyscallDecision::emulate_outside_input(done->result);
    }
    return replay_treatment(stop.number) == ReplayTreatment::NotRecorded
               ? tracer::SyscallDecision::pass()
               : tracer::SyscallDecision::stop_at_exit();
}

void Recorder::on_exit(tracer::Task& task, const tracer::SyscallStop& stop, int64_t& result) {
    auto pending = pending_.find(task.tid());
    if (pending == pending_.end()) {
        return;
    }
    switch (replay_treatment(stop.number)) {
    case ReplayTreatment::EmulateFromLog:
        pending->second.memory_writes = capture_outputs(task, stop, result);
        break;
    case ReplayTreatment::OpenFile:
        // An open the Session did for the guest was copied before the guest had it.
        if (!pending->second.virtual_file && result >= 0 && !task.installed_file(static_cast<int>(result))) {
            struct stat info {};
            const int fd = static_cast<int>(result);
            if (stat(tracer::procfs::descriptor_link(task.host_pid(), fd).c_str(), &info) == 0) {
                copy_opened_file(task, stop, task.host_pid(), fd, tracer::OpenedFileInfo::of(info));
            }
        }
        break;
    case ReplayTreatment::Write:
        pending->second.stdio = capture_stdio(task, stop, result);
        break;
    case ReplayTreatment::ChangePath:
        if (stop.number == SYS_truncate && result == 0) {
            note_truncated_file(task, stop);
        }
        break;
    case ReplayTreatment::ChangeDirectory:
    case ReplayTreatment::Execute:
    case ReplayTreatment::NotRecorded:
        break;
    }
}

void Recorder::on_opened_for_guest(tracer::Task& task, const tracer::SyscallStop& stop, int file,
                                   const tracer::OpenedFileInfo& info) {
    auto pending = pending_.find(task.tid());
    if (pending != pending_.end() && replay_treatment(stop.number) == ReplayTreatment::OpenFile &&
        !pending->second.virtual_file) {
        copy_opened_file(task, stop, own_pid_, file, info);
    }
}

void Recorder::on_buffered_syscall(tracer::Task& task, const SyscallEvent& call) {
    if (call.number == SYS_openat && call.result >= 0 && !call.paths.empty()) {
        copied_files_.insert(GuestDescriptors::absolute_path(task, AT_FDCWD, call.paths.front()));
    }
}

void Recorder::on_guest_waits() {
    writer_.flush();
}

void Recorder::on_event(const Event& event) {
    Event recorded = event;
    std::optional<StdioEvent> stdio;
    if (auto* syscall = std::get_if<SyscallEvent>(&recorded.payload)) {
        auto pending = pending_.find(event.tid);
        if (pending != pending_.end() && pending->second.number == syscall->number && !syscall->buffered) {
            if (!syscall->emulated) {
                // What hermit computed (the Virtualizer's clock, randomness) is computed again on replay;
                // only the outside world's answers are kept.
                syscall->memory_writes = std::move(pending->second.memory_writes);
            }
            stdio = std::move(pending->second.stdio);
            pending_.erase(pending);
        }
    }
    if (std::holds_alternative<ThreadExitEvent>(recorded.payload)) {
        pending_.erase(event.tid);
    }
    last_event_time_ = std::max(last_event_time_, event.time);
    writer_.append(std::move(recorded));
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

void Recorder::copy_opened_file(tracer::Task& task, const tracer::SyscallStop& stop, pid_t owner, int fd,
                                const tracer::OpenedFileInfo& file) {
    // Copied at its first open, whatever the access mode: a replay starts its private copy of a file the
    // guest writes from this content.
    auto path = GuestDescriptors::path(owner, fd);
    if (!path || !path->starts_with("/") || is_system_file(*path)) {
        return;
    }
    const uint64_t flags = open_flags(task, stop);
    const bool writes = opens_for_writing(flags);
    const uint64_t creating = O_CREAT | O_EXCL;
    if ((copied_files_.contains(*path) && !writes) || (flags & creating) == creating) {
        // Copied already, or made by this open (git's objects: nothing to copy, a replay makes it empty).
        copied_files_.insert(*path);
        return;
    }
    if (file.type != S_IFREG) {
        return;
    }
    CopiedFile& copied = copied_by_identity_[{file.device, file.inode}];
    if (copied_files_.insert(*path).second) {
        writer_.add_file(*path, tracer::procfs::descriptor_link(owner, fd), !writes && !copied.written);
    }
    copied.names.insert(*path);
    if (writes) {
        mark_written(copied);
    }
}

void Recorder::mark_written(CopiedFile& copied) {
    // By whichever name the file was copied: a replay gives all of them one private copy. A name copied
    // later is added as written.
    if (std::exchange(copied.written, true)) {
        return;
    }
    for (const std::string& name : copied.names) {
        writer_.mark_written(name);
    }
}

void Recorder::note_truncated_file(tracer::Task& task, const tracer::SyscallStop& stop) {
    const auto path = task.read_string(stop.args[0]);
    struct stat info {};
    if (path && stat(GuestDescriptors::absolute_path(task, AT_FDCWD, *path).c_str(), &info) == 0) {
        mark_written(copied_by_identity_[{info.st_dev, info.st_ino}]);
    }
}

void Recorder::copy_executed_file(tracer::Task& task, const tracer::SyscallStop& stop) {
    const bool at_cwd = tracer::path_argument(stop.number) == 0;
    auto guest_path = task.read_string(stop.args[tracer::path_argument(stop.number)]);
    if (!guest_path) {
        return;
    }
    const std::string path = GuestDescriptors::absolute_path(
        task, at_cwd ? AT_FDCWD : static_cast<int>(stop.args[0]), *guest_path);
    struct stat info {};
    if (path.empty() || is_system_file(path) || copied_files_.contains(path) ||
        stat(path.c_str(), &info) != 0 || !S_ISREG(info.st_mode)) {
        return;
    }
    copied_files_.insert(path);
    CopiedFile& copied = copied_by_identity_[{info.st_dev, info.st_ino}];
    writer_.add_file(path, path, !copied.written);
    copied.names.insert(path);
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
