#include "Replayer.h"

#include "RecordedSyscalls.h"
#include "Recorder.h"
#include "formats/Error.h"
#include "tracer/SyscallTable.h"
#include "tracer/Task.h"

#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <termios.h>
#include <unistd.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <climits>
#include <fstream>
#include <iterator>

namespace hermit::replay {

namespace {

// The redirected path is written this far below the guest's stack pointer: past the 128-byte red zone
// the x86_64 ABI lets leaf functions use without moving rsp.
constexpr uint64_t kBelowStackPointer = 256;

size_t compared_argument_count(int number, size_t recorded) {
    const tracer::SyscallRow* row = tracer::find_syscall(number);
    size_t count = row != nullptr ? row->arg_count : 6;
    return std::min(count, recorded);
}

bool arguments_match(const SyscallEvent& recorded, const std::array<uint64_t, 6>& args) {
    size_t count = compared_argument_count(recorded.number, recorded.args.size());
    return std::equal(recorded.args.begin(), recorded.args.begin() + static_cast<long>(count), args.begin());
}

bool arguments_match(const SyscallEvent& recorded, const SyscallEvent& replayed) {
    size_t count =
        compared_argument_count(recorded.number, std::min(recorded.args.size(), replayed.args.size()));
    return std::equal(recorded.args.begin(), recorded.args.begin() + static_cast<long>(count),
                      replayed.args.begin());
}

// ioctls that only report state (terminal attributes, window size, queued bytes): emulated from the log.
// Every other request may change the process (FIOCLEX, terminal modes) and runs for real.
bool reads_state(uint64_t request) {
    return request == TCGETS || request == TIOCGWINSZ || request == FIONREAD || request == TIOCGPGRP;
}

std::optional<std::vector<char>> file_contents(const std::filesystem::path& path) {
    std::ifstream stream(path, std::ios::binary);
    if (!stream) {
        return std::nullopt;
    }
    return std::vector<char>(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}

std::string absolute_guest_path(pid_t host_pid, int dirfd, const std::string& path) {
    if (path.starts_with("/")) {
        return std::filesystem::path(path).lexically_normal().string();
    }
    std::string base =
        "/proc/" + std::to_string(host_pid) + (dirfd == AT_FDCWD ? "/cwd" : "/fd/" + std::to_string(dirfd));
    char buffer[PATH_MAX];
    ssize_t length = readlink(base.c_str(), buffer, sizeof buffer);
    if (length <= 0 || static_cast<size_t>(length) >= sizeof buffer) {
        return {};
    }
    return (std::filesystem::path(std::string(buffer, static_cast<size_t>(length))) / path)
        .lexically_normal()
        .string();
}

// A schedule that left the token with the thread that had it. Whether one is emitted depends on whether
// a new thread's first stop reached the tracer before its creation event (timing), and it changes
// nothing in the guest, so the replay and the recording may each have some the other lacks.
bool kept_running(const Event& event) {
    const auto* schedule = std::get_if<ScheduleEvent>(&event.payload);
    return schedule != nullptr && schedule->previous_tid == event.tid;
}

std::string describe_replayed(const Event& event) {
    if (const auto* syscall = std::get_if<SyscallEvent>(&event.payload)) {
        return describe_syscall(syscall->number);
    }
    return describe_recorded_event(event);
}

} // namespace

Replayer::Replayer(const RecordingReader& reader, ReplayLog& log,
                   std::vector<tracer::SyscallInterceptor*> followers)
    : reader_(reader), log_(log), followers_(std::move(followers)) {
    for (int fd = 0; fd <= 2; fd++) {
        own_descriptors_.push_back(GuestDescriptors::own_identity(fd));
    }
}

std::set<int> Replayer::trapped_syscalls() const {
    return recorded_syscalls();
}

void Replayer::stop_at_event(uint64_t event_index, StopHandler handler) {
    stop_index_ = event_index;
    stop_handler_ = std::move(handler);
}

const SyscallEvent& Replayer::expect_syscall(tracer::Task& task, const tracer::SyscallStop& stop) {
    const Event* next = log_.peek();
    const SyscallEvent* recorded = next != nullptr ? std::get_if<SyscallEvent>(&next->payload) : nullptr;
    if (recorded == nullptr || next->tid != task.tid() || recorded->number != stop.number) {
        throw_desync(log_.position(), task.tid(),
                     next != nullptr ? describe_recorded_event(*next) : "end of recording",
                     describe_syscall(stop.number));
    }
    if (!arguments_match(*recorded, stop.args)) {
        throw_desync(log_.position(), task.tid(),
                     describe_syscall(recorded->number) + " with its recorded arguments",
                     describe_syscall(stop.number) + " with different arguments");
    }
    return *recorded;
}

tracer::SyscallDecision Replayer::on_entry(tracer::Task& task, const tracer::SyscallStop& stop) {
    while (!log_.at_end() && kept_running(*log_.peek())) {
        log_.take();
    }
    if (stop_index_ && log_.position() >= *stop_index_) {
        stop_index_.reset();
        stop_handler_(log_.position(), task);
    }
    const SyscallEvent& recorded = expect_syscall(task, stop);
    PendingSyscall& pending = pending_[task.tid()];
    pending = PendingSyscall{};
    if (recorded.result == kRetriedSyscallResult && recorded.emulated) {
        // The recorder made the thread retry here; do the same so the schedule stays anchored.
        pending.retried = true;
        user_regs_struct registers = task.registers();
        registers.rip -= 2;
        task.set_registers(registers);
        tracer::SyscallDecision decision = tracer::SyscallDecision::emulate(stop.number);
        decision.yield = true;
        return decision;
    }
    switch (replay_treatment(stop.number)) {
    case ReplayTreatment::EmulateFromLog:
        return emulate_input(task, stop, recorded);
    case ReplayTreatment::OpenFile:
        return open_file(task, stop, pending);
    case ReplayTreatment::Write:
        return write(task, stop, recorded, pending);
    case ReplayTreatment::NotRecorded:
        break;
    }
    return tracer::SyscallDecision::pass();
}

tracer::SyscallDecision Replayer::emulate_input(tracer::Task& task, const tracer::SyscallStop& stop,
                                                const SyscallEvent& recorded) {
    // Results the Virtualizer produced (clock, random, /dev/urandom) are recomputed by it.
    if (recorded.emulated || (stop.number == SYS_ioctl && !reads_state(stop.args[1]))) {
        return tracer::SyscallDecision::pass();
    }
    for (const MemoryWrite& write : recorded.memory_writes) {
        if (!task.write(write.address, write.data.data(), write.data.size())) {
            throw_desync(log_.position(), task.tid(),
                         fmt::format("{} writing {} bytes at {:#x}", describe_syscall(stop.number),
                                     write.data.size(), write.address),
                         "that memory is not mapped");
        }
    }
    return emulate(task, stop, recorded.result);
}

tracer::SyscallDecision Replayer::emulate(tracer::Task& task, const tracer::SyscallStop& stop,
                                          int64_t result) {
    for (tracer::SyscallInterceptor* follower : followers_) {
        follower->on_entry(task, stop);
    }
    return tracer::SyscallDecision::emulate(result);
}

tracer::SyscallDecision Replayer::open_file(tracer::Task& task, const tracer::SyscallStop& stop,
                                            PendingSyscall& pending) {
    const int path_argument = stop.number == SYS_open ? 0 : 1;
    const int dirfd = stop.number == SYS_open ? AT_FDCWD : static_cast<int>(stop.args[0]);
    auto guest_path = task.read_string(stop.args[static_cast<size_t>(path_argument)]);
    if (!guest_path) {
        return tracer::SyscallDecision::pass();
    }
    auto replacement = replacement_for(absolute_guest_path(task.host_pid(), dirfd, *guest_path));
    if (!replacement) {
        return tracer::SyscallDecision::pass();
    }
    const std::string copy = replacement->string();
    user_regs_struct registers = task.registers();
    const uint64_t address = (registers.rsp - kBelowStackPointer - copy.size() - 1) & ~uint64_t{15};
    if (!task.write(address, copy.c_str(), copy.size() + 1)) {
        spdlog::warn("replay: cannot redirect the open of {} to the recorded copy", *guest_path);
        return tracer::SyscallDecision::pass();
    }
    spdlog::info("replay: {} is missing or changed; opening the recorded copy {}", *guest_path, copy);
    pending.redirected = true;
    if (path_argument == 0) {
        pending.original_path_argument = registers.rdi;
        registers.rdi = address;
    } else {
        pending.original_path_argument = registers.rsi;
        registers.rsi = address;
    }
    task.set_registers(registers);
    return tracer::SyscallDecision::stop_at_exit();
}

void Replayer::on_exit(tracer::Task& task, const tracer::SyscallStop& stop, int64_t& /*result*/) {
    auto pending = pending_.find(task.tid());
    if (pending == pending_.end() || !pending->second.redirected) {
        return;
    }
    // The guest must find its own path pointer in the register after the syscall.
    user_regs_struct registers = task.registers();
    (stop.number == SYS_open ? registers.rdi : registers.rsi) = pending->second.original_path_argument;
    task.set_registers(registers);
}

std::optional<std::filesystem::path> Replayer::replacement_for(const std::string& absolute_path) {
    if (absolute_path.empty()) {
        return std::nullopt;
    }
    auto cached = replacements_.find(absolute_path);
    if (cached != replacements_.end()) {
        return cached->second;
    }
    std::optional<std::filesystem::path> replacement;
    for (const RecordedFile& file : reader_.meta().files) {
        if (file.path != absolute_path) {
            continue;
        }
        std::filesystem::path copy = reader_.file_copy(file);
        if (file_contents(absolute_path) != file_contents(copy)) {
            replacement = copy;
        }
        break;
    }
    replacements_.emplace(absolute_path, replacement);
    return replacement;
}

bool Replayer::is_inherited(pid_t host_pid, int fd) const {
    auto identity = GuestDescriptors::identity(host_pid, fd);
    return identity &&
           std::find(own_descriptors_.begin(), own_descriptors_.end(), identity) != own_descriptors_.end();
}

tracer::SyscallDecision Replayer::write(tracer::Task& task, const tracer::SyscallStop& stop,
                                        const SyscallEvent& recorded, PendingSyscall& pending) {
    const int fd = static_cast<int>(stop.args[0]);
    if (!is_inherited(task.host_pid(), fd)) {
        if (GuestDescriptors::is_stream(task.host_pid(), fd)) {
            return emulate(task, stop, recorded.result);
        }
        return tracer::SyscallDecision::pass();
    }
    if (stop.number == SYS_write) {
        pending.written_bytes = task.read_bytes(stop.args[1], stop.args[2]);
    }
    return tracer::SyscallDecision::pass();
}

void Replayer::on_event(const Event& event) {
    if (kept_running(event) &&
        (log_.at_end() || !std::holds_alternative<ScheduleEvent>(log_.peek()->payload))) {
        return;
    }
    while (!log_.at_end() && kept_running(*log_.peek()) &&
           !std::holds_alternative<ScheduleEvent>(event.payload)) {
        log_.take();
    }
    const uint64_t index = log_.position();
    if (log_.at_end()) {
        throw_desync(index, event.tid, "end of recording", describe_replayed(event));
    }
    const Event& recorded = log_.take();
    auto pending = pending_.find(event.tid);
    const bool is_syscall = std::holds_alternative<SyscallEvent>(event.payload);
    compare(index, recorded, event, is_syscall && pending != pending_.end() ? &pending->second : nullptr);
    if (!is_syscall || pending == pending_.end()) {
        return;
    }
    check_stdio(event, pending->second);
    pending_.erase(pending);
}

void Replayer::compare(uint64_t index, const Event& recorded, const Event& replayed,
                       const PendingSyscall* pending) const {
    auto diverged = [&](const std::string& expected, const std::string& actual) {
        throw_desync(index, replayed.tid, expected, actual);
    };
    if (recorded.payload.index() != replayed.payload.index() || recorded.tid != replayed.tid) {
        diverged(describe_recorded_event(recorded),
                 fmt::format("{} in thread {}", describe_replayed(replayed), replayed.tid));
    }
    const auto* recorded_syscall = std::get_if<SyscallEvent>(&recorded.payload);
    if (recorded_syscall == nullptr) {
        if (recorded.payload != replayed.payload) {
            diverged(describe_recorded_event(recorded),
                     describe_replayed(replayed) + " with different details");
        }
        return;
    }
    const auto& replayed_syscall = std::get<SyscallEvent>(replayed.payload);
    const std::string name = describe_syscall(recorded_syscall->number);
    if (recorded_syscall->number != replayed_syscall.number) {
        diverged(name, describe_syscall(replayed_syscall.number));
    }
    if (pending != nullptr && pending->retried) {
        return;
    }
    if ((pending == nullptr || !pending->redirected) &&
        !arguments_match(*recorded_syscall, replayed_syscall)) {
        diverged(name + " with its recorded arguments", name + " with different arguments");
    }
    if (recorded_syscall->result != replayed_syscall.result) {
        diverged(fmt::format("{} = {}", name, recorded_syscall->result),
                 fmt::format("{} = {}", name, replayed_syscall.result));
    }
}

void Replayer::check_stdio(const Event& replayed, const PendingSyscall& pending) {
    const Event* next = log_.peek();
    if (next == nullptr || next->tid != replayed.tid || !std::holds_alternative<StdioEvent>(next->payload)) {
        return;
    }
    const uint64_t index = log_.position();
    const auto& recorded = std::get<StdioEvent>(log_.take().payload);
    // The recorded bytes are what the kernel accepted, a prefix of what the guest asked to write.
    if (pending.written_bytes &&
        (pending.written_bytes->size() < recorded.data.size() ||
         !std::equal(recorded.data.begin(), recorded.data.end(), pending.written_bytes->begin()))) {
        throw_desync(index, replayed.tid,
                     fmt::format("{} bytes written on fd {}", recorded.data.size(), recorded.fd),
                     "different bytes");
    }
}

void Replayer::check_finished(int recorded_exit_status, int replayed_exit_status) const {
    if (!log_.at_end()) {
        throw_desync(log_.position(), log_.peek()->tid, describe_recorded_event(*log_.peek()),
                     "end of the guest");
    }
    if (recorded_exit_status != replayed_exit_status) {
        throw_desync(log_.position(), 0, fmt::format("exit status {}", recorded_exit_status),
                     fmt::format("exit status {}", replayed_exit_status));
    }
}

} // namespace hermit::replay
