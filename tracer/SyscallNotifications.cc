#include "SyscallNotifications.h"

#include <fcntl.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace hermit::tracer {

namespace {

// ERESTARTNOINTR is kernel-internal (include/linux/errno.h): a restart whatever the signal handlers say.
constexpr int32_t kRestartNoInterrupt = 513;

} // namespace

SyscallNotifications::SyscallNotifications(UniqueFd listener) : listener_(std::move(listener)) {
    seccomp_notif_sizes sizes{};
    if (active() && syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) != 0) {
        listener_ = UniqueFd{};
    }
    request_.resize(std::max<size_t>(sizes.seccomp_notif, sizeof(seccomp_notif)));
    response_.resize(std::max<size_t>(sizes.seccomp_notif_resp, sizeof(seccomp_notif_resp)));
}

std::optional<SyscallNotifications::Notification> SyscallNotifications::receive() {
    if (!held_.empty()) {
        const Notification notification = held_.front();
        held_.pop_front();
        return notification;
    }
    std::fill(request_.begin(), request_.end(), 0);
    while (ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_RECV, request_.data()) != 0) {
        if (errno != EINTR) {
            return std::nullopt;
        }
    }
    seccomp_notif request{};
    std::memcpy(&request, request_.data(), sizeof request);
    Notification notification{request.id, static_cast<pid_t>(request.pid), {request.data.nr, {}}};
    std::copy(std::begin(request.data.args), std::end(request.data.args), notification.stop.args.begin());
    return notification;
}

bool SyscallNotifications::pending() const {
    if (!held_.empty()) {
        return true;
    }
    pollfd listener{listener_.get(), POLLIN, 0};
    return active() && poll(&listener, 1, 0) == 1 && (listener.revents & POLLIN) != 0;
}

bool SyscallNotifications::answer(uint64_t id, int64_t result) {
    return result < 0 ? reply(id, 0, static_cast<int32_t>(result), 0) : reply(id, result, 0, 0);
}

bool SyscallNotifications::run_in_kernel(uint64_t id) {
    return reply(id, 0, 0, SECCOMP_USER_NOTIF_FLAG_CONTINUE);
}

int64_t SyscallNotifications::install_and_answer(uint64_t id, int file, bool close_on_exec) {
    seccomp_notif_addfd request{};
    request.id = id;
    request.flags = SECCOMP_ADDFD_FLAG_SEND;
    request.srcfd = static_cast<uint32_t>(file);
    request.newfd_flags = close_on_exec ? O_CLOEXEC : 0;
    int installed = -1;
    while ((installed = ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_ADDFD, &request)) < 0) {
        if (errno != EINTR) {
            return -errno;
        }
    }
    return installed;
}

bool SyscallNotifications::restart_at_ptrace_stop(uint64_t id) {
    return reply(id, 0, -kRestartNoInterrupt, 0);
}

bool SyscallNotifications::reply(uint64_t id, int64_t value, int32_t error, uint32_t flags) {
    seccomp_notif_resp response{};
    response.id = id;
    response.val = value;
    response.error = error;
    response.flags = flags;
    std::fill(response_.begin(), response_.end(), 0);
    std::memcpy(response_.data(), &response, sizeof response);
    while (ioctl(listener_.get(), SECCOMP_IOCTL_NOTIF_SEND, response_.data()) != 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    return true;
}

} // namespace hermit::tracer
