#pragma once
// Stack traces of a ptrace-stopped guest thread: libunwind-ptrace walks the frames, and addr2line turns
// each pc into function and file:line where the module has debug information.

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hermit::tracer {

struct StackFrame {
    uint64_t pc = 0;
    std::string function; // demangled; "??" when unknown
    std::string location; // "file.c:12" with debug info, else "module+0xoffset"
};

// The thread must be ptrace-stopped by the caller. Returns at most max_frames frames, innermost first.
std::vector<StackFrame> unwind_stack(pid_t host_tid, size_t max_frames = 32);

// "#0 0x401136 in use_global at order_violation.c:20", one line per frame.
std::string format_stack(const std::vector<StackFrame>& frames);

} // namespace hermit::tracer
