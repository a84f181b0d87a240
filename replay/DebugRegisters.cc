#include "DebugRegisters.h"

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace hermit::replay {
namespace {

size_t debug_register_offset(int index) {
    return offsetof(struct user, u_debugreg) + index * sizeof(long);
}

// DR7 length field: 1, 2, 8, 4 bytes are 00, 01, 10, 11.
unsigned long dr7_length_bits(uint64_t length) {
    switch (length) {
    case 1:
        return 0b00;
    case 2:
        return 0b01;
    case 8:
        return 0b10;
    default:
        return 0b11;
    }
}

bool wait_for(pid_t child, int& status) {
    while (waitpid(child, &status, 0) < 0) {
        if (errno != EINTR) {
            return false;
        }
    }
    return true;
}

volatile int probe_watched_word = 0; // the forked child writes its copy; the parent watches it

bool probe_watchpoint_traps() {
    const pid_t child = fork();
    if (child < 0) {
        return false;
    }
    if (child == 0) {
        if (ptrace(PTRACE_TRACEME, 0, nullptr, nullptr) == 0 && kill(getpid(), SIGSTOP) == 0) {
            probe_watched_word = 1;
        }
        _exit(0);
    }
    int status = 0;
    bool trapped = false;
    if (wait_for(child, status) && WIFSTOPPED(status) &&
        write_debug_register(child, 0, reinterpret_cast<uintptr_t>(&probe_watched_word)) &&
        write_debug_register(child, kControlDr7, dr7_enable_bits(0, true, sizeof probe_watched_word)) &&
        ptrace(PTRACE_CONT, child, nullptr, nullptr) == 0 && wait_for(child, status)) {
        trapped = WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP &&
                  (read_debug_register(child, kStatusDr6) & 1) != 0;
    }
    if (!WIFEXITED(status) && !WIFSIGNALED(status)) {
        kill(child, SIGKILL);
        while (wait_for(child, status) && !WIFEXITED(status) && !WIFSIGNALED(status)) {
        }
    }
    return trapped;
}

} // namespace

unsigned long read_debug_register(pid_t tid, int index) {
    return static_cast<unsigned long>(ptrace(PTRACE_PEEKUSER, tid, debug_register_offset(index), nullptr));
}

bool write_debug_register(pid_t tid, int index, unsigned long value) {
    return ptrace(PTRACE_POKEUSER, tid, debug_register_offset(index), value) == 0;
}

unsigned long dr7_enable_bits(size_t slot, bool writes_only, uint64_t length) {
    // Local enable bit 2*slot; R/W (01 writes, 11 reads and writes) and LEN fields at bits 16+4*slot.
    const unsigned long access = writes_only ? 0b01 : 0b11;
    return 1UL << (2 * slot) | (access | dr7_length_bits(length) << 2) << (16 + 4 * slot);
}

bool host_delivers_watchpoint_traps() {
    static const bool delivered = probe_watchpoint_traps();
    return delivered;
}

} // namespace hermit::replay
