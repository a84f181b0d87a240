#pragma once
// VdsoPatcher: makes the guest's vDSO time functions trap. The vDSO answers clock_gettime, gettimeofday,
// time, getcpu and clock_getres in user space from the kernel's shared time page, so those calls would
// never reach the tracer. After each exec the patcher finds the vDSO image (AT_SYSINFO_EHDR), looks up
// these functions in its dynamic symbol table, and overwrites each entry point with
//     mov eax, <syscall number>; syscall; ret
// so the call becomes the real system call, which seccomp traps and the Virtualizer emulates. The
// arguments are already in the syscall registers (rdi, rsi) because the vDSO functions take them in
// the same order. The write goes through /proc/<pid>/mem, which copies the page for that process only.

#include "tracer/GuestMemory.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hermit::tracer::virt {

struct VdsoFunction {
    std::string name;
    uint64_t address = 0;
    uint64_t size = 0;
};

// Every function symbol of the vDSO image mapped at `base`; empty if the image is not a valid ELF.
std::vector<VdsoFunction> vdso_functions(GuestMemory& guest, uint64_t base);

// The 8-byte stub that replaces a vDSO function.
std::vector<uint8_t> syscall_stub(int syscall_number);

// Patches the time functions among `functions` (vdso_functions()). `writer` must be able to write
// read-only pages. Returns the names of the functions patched.
std::vector<std::string> patch_vdso(GuestMemory& writer, const std::vector<VdsoFunction>& functions);

} // namespace hermit::tracer::virt
