#include "WaitPredictor.h"

#include "ProcFs.h"
#include "Task.h"
#include "virt/VirtualClock.h"

#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <ctime>
#include <fstream>
#include <string>
#include <string_view>
#include <sys/time.h>

namespace hermit::tracer {

namespace {

// Guest poll sets larger than this are not examined (the kernel runs the call).
constexpr uint64_t kMaxExaminedDescriptors = 1024;

bool has_millisecond_timeout(int number) {
    return number == SYS_poll || number == SYS_epoll_wait || number == SYS_epoll_pwait;
}

uint64_t timeout_argument(const SyscallStop& stop) {
    switch (stop.number) {
    case SYS_poll:
    case SYS_ppoll:
        return stop.args[2];
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_epoll_pwait2:
        return stop.args[3];
    default: // select, pselect6
        return stop.args[4];
    }
}

// A signalfd: the signals it reads and whether it was opened non-blocking.
struct SignalFd {
    uint64_t mask = 0;
    bool nonblocking = false;
};

// A signalfd reports the pending signals of the thread that reads or polls it, so polling hermit's
// duplicate would ask about hermit's own signals: its mask is read from /proc instead. nullopt when `fd`
// is not a signalfd.
std::optional<SignalFd> signalfd_of(pid_t host_pid, int fd) {
    const std::string descriptor = procfs::descriptor_link(host_pid, fd);
    char target[64] = {};
    const ssize_t length = readlink(descriptor.c_str(), target, sizeof target - 1);
    if (length <= 0 || std::string_view(target, static_cast<size_t>(length)) != "anon_inode:[signalfd]") {
        return std::nullopt;
    }
    std::ifstream info("/proc/" + std::to_string(host_pid) + "/fdinfo/" + std::to_string(fd));
    SignalFd signalfd;
    std::string field;
    while (info >> field) {
        if (field == "flags:") {
            unsigned flags = 0;
            info >> std::oct >> flags;
            signalfd.nonblocking = (flags & O_NONBLOCK) != 0;
        } else if (field == "sigmask:") {
            info >> std::hex >> signalfd.mask;
        }
    }
    return signalfd;
}

// What to poll for an epoll_wait on `epoll_fd`: the epoll descriptor itself, which polls readable while any
// of its interests is ready; but when a signalfd is among them (the tracer's poll would ask about hermit's
// own signals), each interest listed in /proc/<pid>/fdinfo instead, by its descriptor and events.
std::vector<std::pair<int, short>> epoll_requests(pid_t host_pid, int epoll_fd) {
    std::ifstream info("/proc/" + std::to_string(host_pid) + "/fdinfo/" + std::to_string(epoll_fd));
    std::vector<std::pair<int, short>> interests;
    bool has_signalfd = false;
    std::string field;
    while (info >> field) {
        if (field != "tfd:") {
            continue;
        }
        int fd = -1;
        unsigned events = 0;
        info >> std::dec >> fd >> field >> std::hex >> events;
        interests.emplace_back(fd, static_cast<short>(events & (POLLIN | POLLPRI | POLLOUT | POLLRDHUP)));
        has_signalfd |= signalfd_of(host_pid, fd).has_value();
    }
    if (!has_signalfd) {
        return {{epoll_fd, POLLIN}};
    }
    return interests;
}

bool signal_pending_for(pid_t host_tid, const SignalFd& signalfd) {
    return (procfs::signal_dispositions(host_tid).pending & signalfd.mask) != 0;
}

} // namespace

WaitPredictor::~WaitPredictor() {
    for (const auto& [pid, pidfd] : pidfds_) {
        close(pidfd);
    }
}

void WaitPredictor::forget(pid_t host_pid) {
    auto found = pidfds_.find(host_pid);
    if (found != pidfds_.end()) {
        close(found->second);
        pidfds_.erase(found);
    }
}

bool WaitPredictor::would_wait(Task& task, const SyscallStop& stop) {
    if (!waits_for_something(task, stop)) {
        return false;
    }
    // A signal the thread would take interrupts any of these waits at once.
    procfs::SignalDispositions signals = procfs::signal_dispositions(task.host_tid());
    uint64_t blocked = signals.blocked;
    if (stop.number == SYS_rt_sigsuspend) {
        const auto mask = task.read_value<uint64_t>(stop.args[0]);
        blocked = mask.value_or(blocked);
    }
    return !signals.pending_deliverable(blocked);
}

bool WaitPredictor::predicts(const SyscallStop& stop) {
    switch (stop.number) {
    case SYS_futex: {
        const int operation = static_cast<int>(stop.args[1]) & FUTEX_CMD_MASK;
        return operation == FUTEX_WAIT || operation == FUTEX_WAIT_BITSET || operation == FUTEX_WAKE;
    }
    case SYS_poll:
    case SYS_ppoll:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_epoll_pwait2:
    case SYS_select:
    case SYS_pselect6:
    case SYS_wait4:
    case SYS_waitid:
    case SYS_pause:
    case SYS_rt_sigsuspend:
    case SYS_rt_sigtimedwait:
    case SYS_read:
    case SYS_readv:
    case SYS_recvfrom:
    case SYS_recvmsg:
    case SYS_write:
    case SYS_writev:
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
        return true;
    default:
        return false;
    }
}

bool WaitPredictor::waits_for_something(Task& task, const SyscallStop& stop) {
    const int fd = static_cast<int>(stop.args[0]);
    switch (stop.number) {
    case SYS_futex:
        return futex_would_wait(task, stop);
    case SYS_poll:
    case SYS_ppoll:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_epoll_pwait2:
        return timeout_ns(task, stop, virt::VirtualClock{}) != 0 && poll_would_wait(task, stop);
    case SYS_select:
    case SYS_pselect6:
        return timeout_ns(task, stop, virt::VirtualClock{}) != 0 && select_would_wait(task, stop);
    case SYS_wait4:
    case SYS_waitid:
        return child_wait_would_wait(task, stop);
    case SYS_pause:
    case SYS_rt_sigsuspend:
        return true; // until a signal
    case SYS_nanosleep:
    case SYS_clock_nanosleep:
        return true; // until a signal, or its deadline (the Session's business)
    case SYS_rt_sigtimedwait:
        return timeout_ns(task, stop, virt::VirtualClock{}) != 0 && signal_wait_would_wait(task, stop);
    case SYS_read:
    case SYS_readv:
        return read_would_wait(task, fd);
    case SYS_recvfrom:
    case SYS_recvmsg: {
        const uint64_t flags = stop.number == SYS_recvfrom ? stop.args[3] : stop.args[2];
        return (flags & MSG_DONTWAIT) == 0 && read_would_wait(task, fd);
    }
    case SYS_write:
        return write_would_wait(task.host_pid(), fd, stop.args[2]);
    case SYS_writev:
        return write_would_wait(task.host_pid(), fd, 1);
    default:
        return false;
    }
}

bool WaitPredictor::futex_would_wait(Task& task, const SyscallStop& stop) {
    const int operation = static_cast<int>(stop.args[1]) & FUTEX_CMD_MASK;
    if (operation != FUTEX_WAIT && operation != FUTEX_WAIT_BITSET) {
        return false;
    }
    const auto word = task.read_value<uint32_t>(stop.args[0]);
    return word && *word == static_cast<uint32_t>(stop.args[2]);
}

bool WaitPredictor::poll_would_wait(Task& task, const SyscallStop& stop) {
    std::vector<std::pair<int, short>> requests;
    if (stop.number == SYS_poll || stop.number == SYS_ppoll) {
        if (stop.args[1] > kMaxExaminedDescriptors) {
            return false;
        }
        for (uint64_t index = 0; index < stop.args[1]; index++) {
            const auto entry = task.read_value<pollfd>(stop.args[0] + index * sizeof(pollfd));
            if (!entry) {
                return false;
            }
            if (entry->fd >= 0) {
                requests.emplace_back(entry->fd, entry->events);
            }
        }
    } else {
        requests = epoll_requests(task.host_pid(), static_cast<int>(stop.args[0]));
    }
    return !any_ready(task, requests);
}

bool WaitPredictor::select_would_wait(Task& task, const SyscallStop& stop) {
    const uint64_t count = stop.args[0];
    if (count > FD_SETSIZE) {
        return false;
    }
    std::vector<std::pair<int, short>> requests;
    const short events[3] = {POLLIN, POLLOUT, POLLPRI};
    for (size_t set = 0; set < 3; set++) {
        if (stop.args[1 + set] == 0) {
            continue;
        }
        const auto bits = task.read_value<fd_set>(stop.args[1 + set]);
        if (!bits) {
            return false;
        }
        for (int fd = 0; fd < static_cast<int>(count); fd++) {
            if (FD_ISSET(fd, &*bits)) {
                requests.emplace_back(fd, events[set]);
            }
        }
    }
    return !any_ready(task, requests);
}

bool WaitPredictor::signal_wait_would_wait(Task& task, const SyscallStop& stop) {
    const auto awaited = task.read_value<uint64_t>(stop.args[0]);
    return awaited && (procfs::signal_dispositions(task.host_tid()).pending & *awaited) == 0;
}

bool WaitPredictor::child_wait_would_wait(Task& task, const SyscallStop& stop) {
    const uint64_t options = stop.number == SYS_wait4 ? stop.args[2] : stop.args[3];
    if (options & WNOHANG) {
        return false;
    }
    if (stop.number == SYS_waitid && stop.args[0] != P_ALL && stop.args[0] != P_PID &&
        stop.args[0] != P_PGID) {
        return false; // P_PIDFD and later id types are left to the kernel
    }
    // Any child the call could report makes the answer "does not wait": the kernel then decides, and a
    // wait for one specific child that is not ready yet falls back to the blocked-thread check.
    std::vector<pid_t> children = procfs::child_processes(task.host_pid());
    if (children.empty()) {
        return false; // ECHILD at once
    }
    const bool reports_stops = (options & WUNTRACED) != 0;
    // Guest children sit in tracing stops ('t') while others run; only exits and job-control stops report.
    return std::none_of(children.begin(), children.end(), [reports_stops](pid_t child) {
        const char state = procfs::thread_state(child);
        return state == 'Z' || (reports_stops && state == 'T');
    });
}

bool WaitPredictor::read_would_wait(Task& task, int fd) {
    if (const auto signalfd = signalfd_of(task.host_pid(), fd)) {
        return !signalfd->nonblocking && !signal_pending_for(task.host_tid(), *signalfd);
    }
    int copy = duplicate(task.host_pid(), fd);
    if (copy < 0) {
        return false;
    }
    bool waits = false;
    int flags = fcntl(copy, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) == 0) {
        pollfd request{copy, POLLIN, 0};
        waits = poll(&request, 1, 0) == 0;
    }
    close(copy);
    return waits;
}

bool WaitPredictor::write_would_wait(pid_t host_pid, int fd, size_t length) {
    int copy = duplicate(host_pid, fd);
    if (copy < 0) {
        return false;
    }
    bool waits = false;
    struct stat info {};
    int flags = fcntl(copy, F_GETFL);
    if (flags >= 0 && (flags & O_NONBLOCK) == 0 && fstat(copy, &info) == 0 && S_ISFIFO(info.st_mode)) {
        int capacity = fcntl(copy, F_GETPIPE_SZ);
        int queued = 0;
        if (capacity > 0 && ioctl(copy, FIONREAD, &queued) == 0) {
            size_t free_space = static_cast<size_t>(capacity - queued);
            // A write larger than the whole pipe always waits for the reader part-way; waiting for an empty
            // pipe first is the best that can be done without splitting the guest's write.
            size_t needed = std::min(length, static_cast<size_t>(capacity));
            waits = free_space < needed;
        }
    } else if (flags >= 0 && (flags & O_NONBLOCK) == 0) {
        pollfd request{copy, POLLOUT, 0}; // a socket: room for a write, as the kernel's poll tells it
        waits = poll(&request, 1, 0) == 0;
    }
    close(copy);
    return waits;
}

bool WaitPredictor::any_ready(Task& task, const std::vector<std::pair<int, short>>& requests) {
    std::vector<pollfd> copies;
    bool ready_without_polling = false;
    for (const auto& [fd, events] : requests) {
        if (const auto signalfd = signalfd_of(task.host_pid(), fd)) {
            if ((events & POLLIN) != 0 && signal_pending_for(task.host_tid(), *signalfd)) {
                ready_without_polling = true; // readable: no need to look further
                break;
            }
            continue;
        }
        int copy = duplicate(task.host_pid(), fd);
        if (copy < 0) {
            ready_without_polling = true; // a closed descriptor reports POLLNVAL at once
            break;
        }
        copies.push_back(pollfd{copy, events, 0});
    }
    bool ready = ready_without_polling || (!copies.empty() && poll(copies.data(), copies.size(), 0) != 0);
    for (const pollfd& copy : copies) {
        close(copy.fd);
    }
    return ready;
}

std::optional<int64_t> WaitPredictor::timeout_ns(Task& task, const SyscallStop& stop,
                                                 const virt::VirtualClock& clock) {
    constexpr int64_t kNsPerSecond = 1'000'000'000;
    auto timespec_at = [&](uint64_t address) -> std::optional<int64_t> {
        const auto value = task.read_value<timespec>(address);
        return value ? std::optional<int64_t>(value->tv_sec * kNsPerSecond + value->tv_nsec) : std::nullopt;
    };
    switch (stop.number) {
    case SYS_futex: {
        const int operation = static_cast<int>(stop.args[1]);
        if (stop.args[3] == 0) {
            return std::nullopt;
        }
        const auto value = timespec_at(stop.args[3]);
        if (!value || (operation & FUTEX_CMD_MASK) != FUTEX_WAIT_BITSET) {
            return value;
        }
        // FUTEX_WAIT_BITSET takes an absolute deadline on CLOCK_MONOTONIC or CLOCK_REALTIME.
        const auto now = clock.read((operation & FUTEX_CLOCK_REALTIME) ? CLOCK_REALTIME : CLOCK_MONOTONIC);
        return std::max<int64_t>(0, *value - now.value_or(0));
    }
    case SYS_poll:
    case SYS_epoll_wait:
    case SYS_epoll_pwait:
    case SYS_ppoll:
    case SYS_pselect6:
    case SYS_epoll_pwait2: {
        const uint64_t timeout = timeout_argument(stop);
        if (has_millisecond_timeout(stop.number)) {
            const int milliseconds = static_cast<int>(timeout);
            return milliseconds < 0 ? std::nullopt
                                    : std::optional<int64_t>(int64_t{milliseconds} * 1'000'000);
        }
        return timeout == 0 ? std::nullopt : timespec_at(timeout);
    }
    case SYS_rt_sigtimedwait:
        return stop.args[2] == 0 ? std::nullopt : timespec_at(stop.args[2]);
    case SYS_nanosleep:
        return timespec_at(stop.args[0]);
    case SYS_clock_nanosleep: {
        const auto value = timespec_at(stop.args[2]);
        if (!value || (stop.args[1] & TIMER_ABSTIME) == 0) {
            return value;
        }
        const auto now = clock.read(static_cast<clockid_t>(stop.args[0]));
        return std::max<int64_t>(0, *value - now.value_or(0));
    }
    case SYS_select: {
        const uint64_t timeout = timeout_argument(stop);
        const auto value = timeout == 0 ? std::nullopt : task.read_value<timeval>(timeout);
        return value ? std::optional<int64_t>(value->tv_sec * kNsPerSecond + value->tv_usec * 1000)
                     : std::nullopt;
    }
    default:
        return std::nullopt;
    }
}

int64_t WaitPredictor::time_out(Task& task, const SyscallStop& stop) {
    switch (stop.number) {
    case SYS_futex:
        return -ETIMEDOUT;
    case SYS_rt_sigtimedwait:
        return -EAGAIN;
    case SYS_poll:
    case SYS_ppoll:
        for (uint64_t index = 0; index < std::min(stop.args[1], kMaxExaminedDescriptors); index++) {
            const short no_events = 0;
            task.write(stop.args[0] + index * sizeof(pollfd) + offsetof(pollfd, revents), &no_events,
                       sizeof no_events);
        }
        if (stop.number == SYS_ppoll && stop.args[2] != 0) {
            const timespec none{};
            task.write(stop.args[2], &none, sizeof none); // Linux reports the time left
        }
        return 0;
    case SYS_select:
    case SYS_pselect6: {
        const fd_set empty{};
        const size_t bytes = std::min<size_t>((stop.args[0] + 7) / 8, sizeof empty);
        for (size_t set = 1; set <= 3; set++) {
            if (stop.args[set] != 0) {
                task.write(stop.args[set], &empty, bytes);
            }
        }
        if (stop.number == SYS_select && stop.args[4] != 0) {
            const timeval none{};
            task.write(stop.args[4], &none, sizeof none); // Linux reports the time left
        } else if (stop.args[4] != 0) {
            const timespec none{};
            task.write(stop.args[4], &none, sizeof none);
        }
        return 0;
    }
    default:
        return 0;
    }
}

int WaitPredictor::duplicate(pid_t host_pid, int fd) {
    auto found = pidfds_.find(host_pid);
    if (found == pidfds_.end()) {
        int pidfd = static_cast<int>(syscall(SYS_pidfd_open, host_pid, 0));
        if (pidfd < 0) {
            return -1;
        }
        found = pidfds_.emplace(host_pid, pidfd).first;
    }
    return static_cast<int>(syscall(SYS_pidfd_getfd, found->second, fd, 0));
}

} // namespace hermit::tracer
