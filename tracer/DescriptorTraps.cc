#include "DescriptorTraps.h"

#include "ProcFs.h"
#include "ReceivedDescriptors.h"
#include "SeccompFilter.h"
#include "Task.h"
#include "formats/Error.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <sys/socket.h>
#include <sys/syscall.h>

#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>

namespace hermit::tracer {

namespace {

// Syscalls whose result is a new descriptor. fcntl makes one only for F_DUPFD and F_DUPFD_CLOEXEC, and
// signalfd4 only when given -1 (otherwise it returns the descriptor it was given, already known).
const std::set<int> kReturnsDescriptor = {
    SYS_open,         SYS_openat,        SYS_openat2,       SYS_creat,       SYS_open_by_handle_at,
    SYS_accept,       SYS_accept4,       SYS_dup,           SYS_dup2,        SYS_dup3,
    SYS_eventfd,      SYS_eventfd2,      SYS_signalfd,      SYS_signalfd4,   SYS_timerfd_create,
    SYS_inotify_init, SYS_inotify_init1, SYS_fanotify_init, SYS_userfaultfd, SYS_perf_event_open,
    SYS_pidfd_getfd,
};

// Syscalls that store new descriptors in the guest's memory.
const std::set<int> kStoresDescriptors = {SYS_pipe, SYS_pipe2, SYS_socketpair, SYS_recvmsg};

// A socket from socket() reads nothing until it is connected or has an address (bound, or bound
// implicitly by a first send): it is trapped then. A program that only tries to reach a daemon (glibc's
// nscd lookups) then leaves no trapped number behind for its files.
const std::set<int> kConnectsSocket = {SYS_connect, SYS_bind, SYS_sendto, SYS_sendmsg};

// Syscalls that move bytes between descriptors inside the kernel, with the argument positions of those
// descriptors.
const std::map<int, std::vector<int>> kTransfers = {
    {SYS_sendfile, {0, 1}},        {SYS_splice, {0, 2}}, {SYS_tee, {0, 1}},
    {SYS_copy_file_range, {0, 2}}, {SYS_vmsplice, {0}},
};

} // namespace

DescriptorTraps::DescriptorTraps(std::set<int> syscalls, std::set<int> initial_fds, Policy must_trap)
    : syscalls_(std::move(syscalls)), initial_fds_(std::move(initial_fds)), must_trap_(std::move(must_trap)),
      watched_(kReturnsDescriptor) {
    watched_.insert(kStoresDescriptors.begin(), kStoresDescriptors.end());
    watched_.insert(kConnectsSocket.begin(), kConnectsSocket.end());
}

std::set<int> DescriptorTraps::trapped_syscalls() const {
    std::set<int> numbers = watched_;
    for (const auto& [number, descriptors] : kTransfers) {
        numbers.insert(number);
    }
    return numbers;
}

std::set<int> DescriptorTraps::notifiable_syscalls() const {
    std::set<int> numbers{SYS_open, SYS_openat};
    for (const auto& [number, descriptors] : kTransfers) {
        numbers.insert(number);
    }
    return numbers;
}

std::vector<ConditionalTrap> DescriptorTraps::conditionally_trapped_syscalls() const {
    std::vector<ConditionalTrap> traps;
    for (int command : {F_DUPFD, F_DUPFD_CLOEXEC}) {
        traps.push_back({SYS_fcntl, 1, 0xffffffff, static_cast<uint64_t>(command)});
    }
    for (int number : syscalls_) {
        for (int fd : initial_fds_) {
            traps.push_back({number, 0, 0xffffffff, static_cast<uint64_t>(fd)});
        }
    }
    return traps;
}

SyscallDecision DescriptorTraps::on_entry(Task& task, const SyscallStop& stop) {
    if (syscalls_.contains(stop.number)) {
        // A trapped number may name a file that needs no trap by now (a regular file at the number a
        // socket had), or the guest's own pipe (dup2'd onto stdin by a shell): the kernel runs the call
        // untraced, in the recording and in its replay alike, which give the guest the same kinds of files.
        // An initial number otherwise keeps its trap: on replay it may name another kind of file than when
        // recorded.
        return records(task.host_pid(), static_cast<int>(stop.args[0])) ? SyscallDecision::pass()
                                                                        : SyscallDecision::untraced();
    }
    if (auto transfer = kTransfers.find(stop.number); transfer != kTransfers.end()) {
        // Bytes the kernel moves from or to a trapped descriptor would pass unseen: the call fails as the
        // kernel fails it for descriptors it cannot splice, and the guest falls back to read and write.
        // Between other descriptors (regular files, the guest's own pipes) it runs as the guest asked, in
        // the recording and in its replay alike.
        const bool involves_trapped =
            std::any_of(transfer->second.begin(), transfer->second.end(), [&](int argument) {
                return records(task.host_pid(), static_cast<int>(stop.args[static_cast<size_t>(argument)]));
            });
        return involves_trapped ? SyscallDecision::emulate(-EINVAL) : SyscallDecision::untraced();
    }
    // fcntl reaches here only for F_DUPFD and F_DUPFD_CLOEXEC, unless another interceptor traps it all.
    const bool makes_descriptors = watched_.contains(stop.number) || stop.number == SYS_fcntl;
    return makes_descriptors ? SyscallDecision::stop_at_exit() : SyscallDecision::pass();
}

std::vector<int> DescriptorTraps::made_descriptors(Task& task, const SyscallStop& stop,
                                                   int64_t result) const {
    switch (stop.number) {
    case SYS_pipe:
    case SYS_pipe2:
    case SYS_socketpair: {
        auto pair = task.read_value<std::array<int, 2>>(stop.args[stop.number == SYS_socketpair ? 3 : 0]);
        return pair ? std::vector<int>{(*pair)[0], (*pair)[1]} : std::vector<int>{};
    }
    case SYS_recvmsg:
        return received_descriptors(task, stop.args[1]);
    case SYS_connect:
    case SYS_bind:
    case SYS_sendto:
    case SYS_sendmsg:
        return {static_cast<int>(stop.args[0])};
    case SYS_fcntl:
        if (stop.args[1] != F_DUPFD && stop.args[1] != F_DUPFD_CLOEXEC) {
            return {};
        }
        break;
    default:
        break;
    }
    return {static_cast<int>(result)};
}

void DescriptorTraps::on_exit(Task& task, const SyscallStop& stop, int64_t& result) {
    // A non-blocking connect goes on after its EINPROGRESS.
    const bool connecting = stop.number == SYS_connect && result == -EINPROGRESS;
    if ((result < 0 && !connecting) || trapping_everything_.contains(task.pid())) {
        return;
    }
    std::set<int>& trapped = trapped_[task.pid()];
    std::vector<int> made = made_descriptors(task, stop, result);
    if (stop.number == SYS_pipe || stop.number == SYS_pipe2) {
        if (const auto pipe =
                made.empty() ? std::nullopt : procfs::descriptor_object(task.host_pid(), made.front())) {
            guest_pipes_.insert(*pipe);
        }
    }
    if (stop.number == SYS_recvmsg) {
        received_numbers_.insert(made.begin(), made.end());
    }
    std::vector<int> new_traps;
    for (int fd : made) {
        // What hermit opened for the guest is a regular file or a directory off pseudo file systems: never
        // trapped.
        if (fd >= 0 && !task.installed_file(fd) && !initial_fds_.contains(fd) && !trapped.contains(fd) &&
            std::find(new_traps.begin(), new_traps.end(), fd) == new_traps.end() &&
            !guest_pipe(task.host_pid(), fd) && must_trap_(task.host_pid(), fd)) {
            new_traps.push_back(fd);
        }
    }
    if (!new_traps.empty()) {
        trap(task, new_traps);
    }
}

bool DescriptorTraps::records(pid_t host_pid, int fd) const {
    return !guest_pipe(host_pid, fd) && (initial_fds_.contains(fd) || must_trap_(host_pid, fd));
}

bool DescriptorTraps::guest_pipe(pid_t host_pid, int fd) const {
    if (guest_pipes_.empty() || received_numbers_.contains(fd)) {
        return false;
    }
    const auto object = procfs::descriptor_object(host_pid, fd);
    return object && guest_pipes_.contains(*object);
}

void DescriptorTraps::trap(Task& task, const std::vector<int>& fds) {
    std::set<int>& trapped = trapped_[task.pid()];
    const bool everything = trapped.size() + fds.size() > kMaxInjectedDescriptors;
    const SeccompFilter filter =
        everything ? SeccompFilter(syscalls_) : SeccompFilter::on_descriptors(syscalls_, fds);
    const std::vector<sock_filter>& program = filter.program();

    // The sock_fprog header (16 bytes), then the program.
    const uint64_t program_bytes = program.size() * sizeof(sock_filter);
    const uint64_t header_address = task.scratch_below_stack(16 + program_bytes);
    const uint64_t program_address = header_address + 16;
    const sock_fprog header{static_cast<unsigned short>(program.size()),
                            reinterpret_cast<sock_filter*>(program_address)};
    if (!task.write(program_address, program.data(), program_bytes) ||
        !task.write(header_address, &header, sizeof header)) {
        throw Error(ErrorCode::TracerInternal, "cannot write a seccomp filter into the guest's stack");
    }
    const int64_t result = task.inject_syscall(
        SYS_seccomp, {SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, header_address, 0, 0, 0});
    if (result != 0) {
        // Not trapping would let a replay read what the recording never saw: stop instead.
        throw Error(ErrorCode::TracerInternal, "cannot add a seccomp filter to guest process " +
                                                   std::to_string(task.pid()) + ": result " +
                                                   std::to_string(result));
    }
    if (spdlog::should_log(spdlog::level::trace)) {
        std::vector<std::string> names;
        for (int fd : fds) {
            std::error_code error;
            names.push_back(fmt::format(
                "{} ({})", fd,
                std::filesystem::read_symlink(fmt::format("/proc/{}/fd/{}", task.host_pid(), fd), error)
                    .string()));
        }
        spdlog::trace("process {}: descriptors trapped from now on: {}", task.pid(),
                      everything ? std::string("all") : fmt::format("{}", fmt::join(names, ", ")));
    }
    if (everything) {
        trapping_everything_.insert(task.pid());
        trapped_.erase(task.pid());
    } else {
        trapped.insert(fds.begin(), fds.end());
    }
}

void DescriptorTraps::on_event(const Event& event) {
    const auto* start = std::get_if<ThreadStartEvent>(&event.payload);
    if (start != nullptr && start->new_process) {
        trapped_.erase(event.pid);
        trapping_everything_.erase(event.pid);
    }
}

} // namespace hermit::tracer
