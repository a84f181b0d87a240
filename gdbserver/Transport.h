#pragma once
// Transport: the socket side of a gdb connection. A Listener listens on 127.0.0.1 only (a debugger port is
// arbitrary code execution in the debuggee, so it is never exposed beyond the local host), or on a Unix
// domain socket, which only those who can enter its directory can reach; Socket is one accepted
// connection with blocking reads and a non-blocking readiness check, used to notice gdb's interrupt byte
// while the target runs.
//
// Every wait can be cancelled: given a descriptor that becomes readable (a signalfd of termination
// signals), accept() gives up and a Socket reads as closed, so a server blocked on gdb ends promptly.

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hermit::gdbserver {

// Raised when the listener cannot be set up or the connection fails. gdbserver does not know the hermit
// error catalog; callers map a bind failure to E060 (GdbserverBind) with port() and reason().
class TransportError : public std::runtime_error {
public:
    TransportError(uint16_t port, std::string reason);

    uint16_t port() const { return port_; }
    const std::string& reason() const { return reason_; }

private:
    uint16_t port_;
    std::string reason_;
};

// Owns a file descriptor and closes it on destruction.
class FileDescriptor {
public:
    FileDescriptor() = default;
    explicit FileDescriptor(int fd) : fd_(fd) {}
    FileDescriptor(FileDescriptor&& other) noexcept : fd_(other.release()) {}
    FileDescriptor& operator=(FileDescriptor&& other) noexcept;
    FileDescriptor(const FileDescriptor&) = delete;
    FileDescriptor& operator=(const FileDescriptor&) = delete;
    ~FileDescriptor();

    int get() const { return fd_; }
    int release();

private:
    int fd_ = -1;
};

class Socket {
public:
    // `cancel`: a descriptor whose readability ends the connection (-1: none); not owned.
    explicit Socket(FileDescriptor fd, int cancel = -1) : fd_(std::move(fd)), cancel_(cancel) {}

    // Connects to 127.0.0.1:port (used by tests that play gdb's part).
    static Socket connect_loopback(uint16_t port);

    // Blocks until at least one byte arrives; returns the bytes read, or an empty string when the peer
    // closed the connection or the wait was cancelled.
    std::string read_some();
    // Whether bytes (or the end of the stream) are ready to read, waiting at most timeout_ms (0: just
    // look; negative: wait indefinitely).
    bool wait_readable(int timeout_ms);
    void write_all(std::string_view data);

private:
    FileDescriptor fd_;
    int cancel_;
};

class Listener {
public:
    // Listens on 127.0.0.1:port; port 0 lets the kernel choose one, reported by port().
    static Listener listen_loopback(uint16_t port);
    // Listens on a Unix domain socket made at `path` (the caller keeps its directory private).
    static Listener listen_local(const std::string& path);

    uint16_t port() const { return port_; } // 0 for a Unix domain socket
    // Blocks until one client connects, or `cancel` (-1: none) becomes readable: then nullopt. The
    // Socket is cancelled by the same descriptor.
    std::optional<Socket> accept(int cancel = -1);

private:
    Listener(FileDescriptor fd, uint16_t port) : fd_(std::move(fd)), port_(port) {}

    FileDescriptor fd_;
    uint16_t port_;
};

} // namespace hermit::gdbserver
