#pragma once
// EphemeralPorts: the port an IPv4 or IPv6 socket gets when the guest leaves the choice to the kernel
// (bind to port 0, or connect with no address of its own), from a counter instead of the kernel's randomized
// search. A server that prints the port it got prints the same one in every run, and its replay binds the
// port its recording did, so the output the replay checks is the recorded one.
//
// Ports go up from 32768 (the start of Linux's default ephemeral range, as Hermit hands them out), one per
// bind, skipping those in use on the host: the guest shares the host's network. A TCP socket bound so has
// SO_REUSEADDR set (its getsockopt says 1), so the TIME_WAIT connections a previous run left on its port do
// not take it. A client's port can still move on when its previous run's connection lingers there, and a
// replay on a host where a recorded port is taken gets the next one and says so as a divergence, never
// silently. The socket is bound through a duplicate of the guest's descriptor (pidfd_getfd), which is the
// same socket.

#include "tracer/SyscallInterceptor.h"

#include <cstdint>
#include <optional>

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class EphemeralPorts {
public:
    // bind(fd, address, length) asking for port 0 of AF_INET or AF_INET6: binds the socket to the next
    // free port and returns the syscall's result. nullopt for any other bind: the kernel runs it.
    std::optional<int64_t> bind(Task& task, const SyscallStop& stop);
    // connect(fd, ...) of an IPv4 or IPv6 socket that has no port yet: binds it to the next free port on
    // the wildcard address first, where the kernel would have picked one. The kernel then runs the connect.
    void before_connect(Task& task, const SyscallStop& stop);

private:
    // Binds `socket` to `address` (a sockaddr_in or sockaddr_in6 of `length` bytes, port 0) with the next
    // free port; the negative errno of the last attempt when none could be bound.
    int64_t bind_next(int socket, void* address, uint32_t length);

    static constexpr uint16_t kFirst = 32768;
    static constexpr uint16_t kLast = 60999;
    uint16_t next_ = kFirst;
};

} // namespace hermit::tracer::virt
