#pragma once
// SyscallFormatter: renders syscalls as strace prints them, from a SyscallTable row and guest memory:
//   openat(AT_FDCWD, "/etc/passwd", O_RDONLY|O_CLOEXEC) = 3
//   read(3, "root:x:0:0:root:/root:/bin/bash\n"..., 4096) = 1234
//   openat(AT_FDCWD, "/nope", O_RDONLY) = -1 ENOENT (No such file or directory)
// Formatting is split like the syscall itself: arguments the kernel reads are rendered at entry (memory
// may change during the call), outputs at exit once the kernel has written them.

#include "GuestMemory.h"
#include "SyscallTable.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace hermit::tracer {

struct SyscallFormatOptions {
    size_t string_limit = 32; // bytes of a buffer or string shown before "..." (strace -s)
    size_t array_limit = 32;  // elements of argv, iovec or pollfd arrays shown before "..."
};

// A syscall between its entry and its exit.
struct PendingSyscall {
    struct Argument {
        size_t index = 0;
        std::string text;     // rendered at entry; empty for outputs until exit
        bool at_exit = false; // an output: rendered by format_exit()
    };
    int number = 0;
    std::array<uint64_t, 6> args{};
    const SyscallRow* row = nullptr; // nullptr for a number the table does not know
    std::vector<Argument> arguments; // the arguments to print, in order (an unused open mode is left out)
};

class SyscallFormatter {
public:
    explicit SyscallFormatter(SyscallFormatOptions options = {});

    PendingSyscall format_entry(GuestMemory& memory, int number, const std::array<uint64_t, 6>& args) const;
    // The complete line, without a newline: "name(arguments) = result".
    std::string format_exit(GuestMemory& memory, const PendingSyscall& call, int64_t result) const;
    // A call that will not come back: "exit_group(0) = ?" for calls that never return, otherwise the
    // entry followed by " <unfinished ...>".
    std::string format_unfinished(const PendingSyscall& call) const;
    // " = 3", " = 0x7f0000000000", " = -1 ENOENT (No such file or directory)"; row may be nullptr.
    static std::string format_result(const SyscallRow* row, int64_t result);

private:
    // "name(arguments" for the call, outputs rendered as their address.
    std::string format_call_start(const PendingSyscall& call) const;
    std::string render_input(GuestMemory& memory, const PendingSyscall& call, size_t index) const;
    std::string render_output(GuestMemory& memory, const PendingSyscall& call, size_t index,
                              int64_t result) const;

    SyscallFormatOptions options_;
};

// Escapes bytes as strace does: "..." with C escapes and octal for other unprintable bytes, followed by
// "..." when `truncated`.
std::string quote_bytes(const uint8_t* data, size_t length, bool truncated);

// Flag and constant renderers, also used by tests and other printers.
std::string format_open_flags(uint64_t flags);
std::string format_status_flags(uint64_t flags); // O_* flags without an access mode
std::string format_mmap_prot(uint64_t prot);
std::string format_mmap_flags(uint64_t flags);
std::string format_clone_flags(uint64_t flags);
std::string format_at_flags(uint64_t flags);
std::string format_signal(int signal);
std::string format_mode(uint64_t mode); // "0644", "000"

} // namespace hermit::tracer
