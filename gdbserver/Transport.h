#pragma once
// Transport: the TCP side of a gdb connection. TcpListener listens on 127.0.0.1 only (a debugger port is
// arbitrary code execution in the debuggee, so it is never exposed beyond the local host); Socket is one
// accepted connection with blocking reads and a non-blocking readiness check, used to notice gdb's
// interrupt byte while the target runs.

#include <cstdint>
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
    explicit Socket(FileDescriptor fd) : fd_(std::move(fd)) {}

    // Connects to 127.0.0.1:port (used by tests that play gdb's part).
    static Socket connect_loopback(uint16_t port);

    // Blocks until at least one byte arrives; returns the bytes read, or an empty string when the peer
    // closed the connection.
    std::string read_some();
    // Whether bytes (or the end of the stream) are ready to read, waiting at most timeout_ms (0: just
    // look; negative: wait indefinitely).
    bool wait_readable(int timeout_ms);
    void write_all(std::string_view data);

private:
    FileDescriptor fd_;
};

class TcpListener {
public:
    // Listens on 127.0.0.1:port; port 0 lets the kernel choose one, reported by port().
    static TcpListener listen_loopback(uint16_t port);

    uint16_t port() const { return port_; }
    // Blocks until one client connects.
    Socket accept();

private:
    TcpListener(FileDescriptor fd, uint16_t port) : fd_(std::move(fd)), port_(port) {}

    FileDescriptor fd_;
    uint16_t port_;
};

} // namespace hermit::gdbserver
