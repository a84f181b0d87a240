#pragma once
// KernelNames: the symbolic names of errno values and signal numbers, as strace prints them.

#include <string_view>

namespace hermit::tracer {

// "ENOENT" for 2; empty for a number without a name. Covers 1..133 and the kernel-internal 512..530
// (ERESTARTSYS...), which a tracer sees at syscall exit when a signal interrupts a call.
std::string_view errno_name(int error);
// "No such file or directory" (the glibc text, as strace prints it); empty when unknown.
std::string_view errno_message(int error);
// "SIGINT" for 2, "SIGRTMIN" for 32, "SIGRT_1" for 33 ... "SIGRT_32" for 64; empty otherwise.
std::string_view signal_name(int signal);

} // namespace hermit::tracer
