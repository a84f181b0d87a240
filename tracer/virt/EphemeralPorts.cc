#include "EphemeralPorts.h"

#include "tracer/Task.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace hermit::tracer::virt {

namespace {

// Room for either address family the allocator binds.
union InternetAddress {
    sockaddr any;
    sockaddr_in v4;
    sockaddr_in6 v6;
};

// The port field of an AF_INET or AF_INET6 address of `length` bytes, or null for anything else.
in_port_t* port_of(InternetAddress& address, uint32_t length) {
    if (address.any.sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
        return &address.v4.sin_port;
    }
    if (address.any.sa_family == AF_INET6 && length >= sizeof(sockaddr_in6)) {
        return &address.v6.sin6_port;
    }
    return nullptr;
}

} // namespace

std::optional<int64_t> EphemeralPorts::bind(Task& task, const SyscallStop& stop) {
    InternetAddress address{};
    const auto length = static_cast<uint32_t>(stop.args[2]);
    if (length > sizeof address || !task.read(stop.args[1], &address, length)) {
        return std::nullopt; // the kernel says what is wrong with it
    }
    const in_port_t* port = port_of(address, length);
    if (port == nullptr || *port != 0) {
        return std::nullopt;
    }
    const UniqueFd socket = duplicate_guest_descriptor(task.host_pid(), static_cast<int>(stop.args[0]));
    if (socket.get() < 0) {
        return std::nullopt;
    }
    int type = 0;
    socklen_t type_length = sizeof type;
    if (getsockopt(socket.get(), SOL_SOCKET, SO_TYPE, &type, &type_length) == 0 && type == SOCK_STREAM) {
        // The connections a server accepted on its port linger in TIME_WAIT after it ends; without this,
        // the next run, or the replay right after a recording, would find its port taken by them and get
        // another. Linux never lets two TCP sockets listen on one port for it, so nothing else changes.
        const int reuse = 1;
        setsockopt(socket.get(), SOL_SOCKET, SO_REUSEADDR, &reuse, sizeof reuse);
    }
    return bind_next(socket.get(), &address, length);
}

void EphemeralPorts::before_connect(Task& task, const SyscallStop& stop) {
    const UniqueFd socket = duplicate_guest_descriptor(task.host_pid(), static_cast<int>(stop.args[0]));
    InternetAddress own{};
    socklen_t length = sizeof own;
    if (socket.get() < 0 || getsockname(socket.get(), &own.any, &length) != 0) {
        return;
    }
    const in_port_t* port = port_of(own, length);
    if (port == nullptr || *port != 0) {
        return; // not an internet socket, or bound already
    }
    // A wildcard address of the socket's family: the connect picks the source address as it would have.
    InternetAddress wildcard{};
    wildcard.any.sa_family = own.any.sa_family;
    if (own.any.sa_family == AF_INET) {
        wildcard.v4.sin_addr.s_addr = htonl(INADDR_ANY);
    }
    bind_next(socket.get(), &wildcard, length);
}

int64_t EphemeralPorts::bind_next(int socket, void* address, uint32_t length) {
    auto& internet = *static_cast<InternetAddress*>(address);
    in_port_t* port = port_of(internet, length);
    int error = EADDRINUSE;
    for (int attempt = 0; attempt <= kLast - kFirst && error == EADDRINUSE; ++attempt) {
        const uint16_t candidate = next_;
        next_ = next_ == kLast ? kFirst : static_cast<uint16_t>(next_ + 1);
        *port = htons(candidate);
        if (::bind(socket, &internet.any, length) == 0) {
            return 0;
        }
        error = errno;
    }
    return -error;
}

} // namespace hermit::tracer::virt
