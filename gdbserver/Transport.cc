#include "Transport.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

namespace hermit::gdbserver {

namespace {

std::string errno_text() {
    return std::strerror(errno);
}

sockaddr_in loopback_address(uint16_t port) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return address;
}

// Packets are small and latency-bound (one request, one reply), so Nagle's delay only slows gdb down.
// (A Unix domain socket has no such delay, and refuses the option.)
void disable_nagle(int fd) {
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

enum class Wait { Readable, Cancelled, TimedOut };

// Waits until `fd` is readable or `cancel` (-1: none) is, at most `timeout_ms` (as poll's).
Wait wait_for(int fd, int cancel, int timeout_ms) {
    pollfd entries[2] = {{fd, POLLIN, 0}, {cancel, POLLIN, 0}};
    const nfds_t count = cancel >= 0 ? 2 : 1;
    int ready = 0;
    do {
        ready = poll(entries, count, timeout_ms);
    } while (ready < 0 && errno == EINTR);
    if (count == 2 && ready > 0 && entries[1].revents != 0) {
        return Wait::Cancelled;
    }
    return ready > 0 && (entries[0].revents & (POLLIN | POLLHUP | POLLERR)) != 0 ? Wait::Readable
                                                                                 : Wait::TimedOut;
}

} // namespace

TransportError::TransportError(uint16_t port, std::string reason)
    : std::runtime_error(fmt::format("127.0.0.1:{}: {}", port, reason)), port_(port),
      reason_(std::move(reason)) {}

FileDescriptor& FileDescriptor::operator=(FileDescriptor&& other) noexcept {
    if (this != &other) {
        if (fd_ >= 0) {
            close(fd_);
        }
        fd_ = other.release();
    }
    return *this;
}

FileDescriptor::~FileDescriptor() {
    if (fd_ >= 0) {
        close(fd_);
    }
}

int FileDescriptor::release() {
    int fd = fd_;
    fd_ = -1;
    return fd;
}

Socket Socket::connect_loopback(uint16_t port) {
    FileDescriptor fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) {
        throw TransportError(port, "socket: " + errno_text());
    }
    sockaddr_in address = loopback_address(port);
    if (connect(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        throw TransportError(port, "connect: " + errno_text());
    }
    disable_nagle(fd.get());
    return Socket(std::move(fd));
}

std::string Socket::read_some() {
    char buffer[4096];
    if (cancel_ >= 0 && wait_for(fd_.get(), cancel_, -1) == Wait::Cancelled) {
        return {};
    }
    for (;;) {
        ssize_t n = read(fd_.get(), buffer, sizeof buffer);
        if (n >= 0) {
            return std::string(buffer, static_cast<size_t>(n));
        }
        if (errno == EINTR) {
            continue;
        }
        // A reset connection is the peer going away, the same as an orderly close.
        if (errno == ECONNRESET) {
            return {};
        }
        throw TransportError(0, "read: " + errno_text());
    }
}

bool Socket::wait_readable(int timeout_ms) {
    // A cancelled wait reads as the end of the stream: read_some() then reports it.
    return wait_for(fd_.get(), cancel_, timeout_ms) != Wait::TimedOut;
}

void Socket::write_all(std::string_view data) {
    while (!data.empty()) {
        ssize_t n = send(fd_.get(), data.data(), data.size(), MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            throw TransportError(0, "write: " + errno_text());
        }
        data.remove_prefix(static_cast<size_t>(n));
    }
}

Listener Listener::listen_loopback(uint16_t port) {
    FileDescriptor fd(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) {
        throw TransportError(port, "socket: " + errno_text());
    }
    int one = 1;
    setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in address = loopback_address(port);
    if (bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        throw TransportError(port, errno_text());
    }
    if (listen(fd.get(), 1) != 0) {
        throw TransportError(port, "listen: " + errno_text());
    }
    socklen_t length = sizeof address;
    if (getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
        throw TransportError(port, "getsockname: " + errno_text());
    }
    return Listener(std::move(fd), ntohs(address.sin_port));
}

Listener Listener::listen_local(const std::string& path) {
    FileDescriptor fd(socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (fd.get() < 0) {
        throw TransportError(0, "socket: " + errno_text());
    }
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (path.size() >= sizeof address.sun_path) {
        throw TransportError(0, path + ": the path is too long for a Unix domain socket");
    }
    std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
    if (bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        throw TransportError(0, path + ": " + errno_text());
    }
    if (listen(fd.get(), 1) != 0) {
        throw TransportError(0, "listen: " + errno_text());
    }
    return Listener(std::move(fd), 0);
}

std::optional<Socket> Listener::accept(int cancel) {
    for (;;) {
        if (cancel >= 0 && wait_for(fd_.get(), cancel, -1) == Wait::Cancelled) {
            return std::nullopt;
        }
        int fd = accept4(fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
            disable_nagle(fd);
            return Socket(FileDescriptor(fd), cancel);
        }
        if (errno != EINTR) {
            throw TransportError(port_, "accept: " + errno_text());
        }
    }
}

} // namespace hermit::gdbserver
