#include "Task.h"

#include "ProcFs.h"
#include "ProcessMemoryFile.h"
#include "formats/Error.h"

#include <fcntl.h>
#include <sys/ptrace.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <string>

namespace hermit::tracer {

namespace {

// The syscall instruction (0f 05) is two bytes long; rewinding rip by it re-executes the syscall.
constexpr uint64_t kSyscallInstructionLength = 2;

// Whether the thread is at a syscall-exit stop, from PTRACE_GET_SYSCALL_INFO (whose definitions glibc 2.36
// lacks and linux/ptrace.h cannot add next to sys/ptrace.h): the first byte of the answer is the stop kind.
bool at_syscall_exit(pid_t tid) {
    constexpr int kGetSyscallInfo = 0x420e;
    constexpr uint8_t kSyscallExit = 2;
    std::array<uint8_t, 88> info{};
    if (ptrace(static_cast<__ptrace_request>(kGetSyscallInfo), tid, info.size(), info.data()) <= 0) {
        throw Error(ErrorCode::TracerInternal,
                    std::string("PTRACE_GET_SYSCALL_INFO during syscall injection: ") + std::strerror(errno));
    }
    return info[0] == kSyscallExit;
}

} // namespace

Task::Task(pid_t host_tid, pid_t host_pid, int32_t guest_tid, int32_t guest_pid, bool has_hermit_credentials)
    : host_tid_(host_tid), host_pid_(host_pid), guest_tid_(guest_tid), guest_pid_(guest_pid),
      has_hermit_credentials_(has_hermit_credentials) {}

const user_regs_struct& Task::registers() {
    if (!registers_valid_) {
        if (ptrace(PTRACE_GETREGS, host_tid_, nullptr, &registers_) != 0) {
            throw Error(ErrorCode::TracerInternal, "PTRACE_GETREGS of thread " + std::to_string(host_tid_) +
                                                       ": " + std::strerror(errno));
        }
        registers_valid_ = true;
    }
    return registers_;
}

void Task::set_registers(const user_regs_struct& registers) {
    registers_ = registers;
    registers_valid_ = true;
    registers_dirty_ = true;
}

void Task::flush_registers() {
    // ESRCH: the thread was killed meanwhile (another thread's exit_group, a fatal signal); its exit is
    // reported by waitpid and its registers no longer matter.
    if (registers_dirty_ && ptrace(PTRACE_SETREGS, host_tid_, nullptr, &registers_) != 0 && errno != ESRCH) {
        throw Error(ErrorCode::TracerInternal,
                    "PTRACE_SETREGS of thread " + std::to_string(host_tid_) + ": " + std::strerror(errno));
    }
    registers_valid_ = false;
    registers_dirty_ = false;
}

bool Task::read(uint64_t address, void* buffer, size_t length) {
    if (length == 0) {
        return true;
    }
    iovec local{buffer, length};
    iovec remote{reinterpret_cast<void*>(address), length};
    ssize_t count = process_vm_readv(host_tid_, &local, 1, &remote, 1, 0);
    if (count == static_cast<ssize_t>(length)) {
        return true;
    }
    return ProcessMemoryFile(host_tid_).read(address, buffer, length);
}

std::optional<std::string> Task::read_string(uint64_t address, size_t max_length) {
    for (const StringRead& read : strings_read_) {
        if (read.address == address && read.max_length == max_length) {
            return read.text;
        }
    }
    std::optional<std::string> text = GuestMemory::read_string(address, max_length);
    // A syscall takes at most two paths (link, rename, symlink).
    constexpr size_t kRemembered = 2;
    if (text) {
        if (strings_read_.size() == kRemembered) {
            strings_read_.erase(strings_read_.begin());
        }
        strings_read_.push_back(StringRead{address, max_length, *text});
    }
    return text;
}

bool Task::write(uint64_t address, const void* buffer, size_t length) {
    if (length == 0) {
        return true;
    }
    strings_read_.clear();
    // process_vm_writev respects page protections; /proc/<tid>/mem can also write read-only pages
    // (breakpoints in text), so it is the fallback.
    iovec local{const_cast<void*>(buffer), length};
    iovec remote{reinterpret_cast<void*>(address), length};
    ssize_t count = process_vm_writev(host_tid_, &local, 1, &remote, 1, 0);
    if (count == static_cast<ssize_t>(length)) {
        return true;
    }
    return ProcessMemoryFile(host_tid_).write(address, buffer, length);
}

uint64_t Task::scratch_below_stack(uint64_t bytes) {
    constexpr uint64_t kBelowStackPointer = 256;
    return (registers().rsp - kBelowStackPointer - bytes) & ~uint64_t{15};
}

uint64_t Task::hold_signals() {
    uint64_t guest_mask = 0;
    uint64_t all_blocked = ~uint64_t{0};
    if (ptrace(PTRACE_GETSIGMASK, host_tid_, sizeof guest_mask, &guest_mask) != 0 ||
        ptrace(PTRACE_SETSIGMASK, host_tid_, sizeof all_blocked, &all_blocked) != 0) {
        throw Error(ErrorCode::TracerInternal,
                    std::string("signal mask during syscall injection: ") + std::strerror(errno));
    }
    return guest_mask;
}

void Task::release_signals(uint64_t guest_mask) {
    if (ptrace(PTRACE_SETSIGMASK, host_tid_, sizeof guest_mask, &guest_mask) != 0) {
        throw Error(ErrorCode::TracerInternal,
                    std::string("PTRACE_SETSIGMASK after syscall injection: ") + std::strerror(errno));
    }
}

int Task::resume_and_wait(int request) {
    if (ptrace(static_cast<__ptrace_request>(request), host_tid_, nullptr, 0) != 0) {
        throw Error(ErrorCode::TracerInternal,
                    std::string("resume during syscall injection: ") + std::strerror(errno));
    }
    int status = 0;
    while (waitpid(host_tid_, &status, __WALL) < 0) {
        if (errno != EINTR) {
            throw Error(ErrorCode::TracerInternal,
                        std::string("waitpid during syscall injection: ") + std::strerror(errno));
        }
    }
    if (!WIFSTOPPED(status)) {
        throw Error(ErrorCode::TracerInternal,
                    "thread " + std::to_string(host_tid_) + " died during syscall injection");
    }
    return status;
}

void Task::run_to_syscall_exit() {
    // From an exit stop: the entry stop, a seccomp stop if a filter traps the call, the exit stop. From a
    // seccomp stop: straight to the exit stop.
    for (;;) {
        const int status = resume_and_wait(PTRACE_SYSCALL);
        if (WSTOPSIG(status) == (SIGTRAP | 0x80) && at_syscall_exit(host_tid_)) {
            break;
        }
    }
    registers_valid_ = false;
}

SyscallStop syscall_of(const user_regs_struct& registers) {
    SyscallStop stop;
    stop.number = static_cast<int>(registers.orig_rax);
    stop.args = {registers.rdi, registers.rsi, registers.rdx, registers.r10, registers.r8, registers.r9};
    return stop;
}

user_regs_struct syscall_registers(const user_regs_struct& at, int number,
                                   const std::array<uint64_t, 6>& args) {
    user_regs_struct call = at;
    call.orig_rax = static_cast<uint64_t>(number);
    call.rax = static_cast<uint64_t>(number);
    call.rdi = args[0];
    call.rsi = args[1];
    call.rdx = args[2];
    call.r10 = args[3];
    call.r8 = args[4];
    call.r9 = args[5];
    return call;
}

int64_t Task::run_injected(const user_regs_struct& at, int number, const std::array<uint64_t, 6>& args) {
    set_registers(syscall_registers(at, number, args));
    flush_registers();
    strings_read_.clear();
    run_to_syscall_exit();
    return static_cast<int64_t>(registers().rax);
}

int64_t Task::inject_syscall(int number, const std::array<uint64_t, 6>& args) {
    const bool at_exit = at_syscall_exit(host_tid_);
    // Signals that come meanwhile stay pending, with their siginfo, until the guest's mask is back: the
    // Session sees them as if they had come after the injection.
    const uint64_t guest_mask = hold_signals();
    const user_regs_struct saved = registers();
    user_regs_struct at = saved;
    if (at_exit) {
        // Past its syscall: the guest executes its syscall instruction once more, now for the injected call.
        at.rip -= kSyscallInstructionLength;
    }
    const int64_t result = run_injected(at, number, args);

    if (at_exit) {
        // The guest is back at its own exit stop, with its own result.
        set_registers(saved);
        flush_registers();
    } else {
        // Re-execute the guest's own syscall instruction: it passes the seccomp filter again and stops at a
        // fresh seccomp stop with the original registers, which is where the caller expects the task to be.
        user_regs_struct restored = saved;
        restored.rax = saved.orig_rax;
        restored.rip = saved.rip - kSyscallInstructionLength;
        set_registers(restored);
        flush_registers();
        while ((resume_and_wait(PTRACE_CONT) >> 16) != PTRACE_EVENT_SECCOMP) {
        }
    }
    release_signals(guest_mask);
    registers_valid_ = false;
    return result;
}

int64_t Task::inject_syscall_after_exec(int number, const std::array<uint64_t, 6>& args) {
    const uint64_t guest_mask = hold_signals();
    // At the exec event the kernel has yet to return from execve, which would overwrite rax: the call is
    // made from the execve's exit stop, where the registers are those the new program starts with.
    run_to_syscall_exit();
    const user_regs_struct entry = registers();
    constexpr std::array<uint8_t, kSyscallInstructionLength> kSyscallInstruction = {0x0F, 0x05};
    std::array<uint8_t, kSyscallInstructionLength> original{};
    ProcessMemoryFile text(host_tid_); // the entry point's page is read-only
    if (!text.read(entry.rip, original.data(), original.size()) ||
        !text.write(entry.rip, kSyscallInstruction.data(), kSyscallInstruction.size())) {
        throw Error(ErrorCode::TracerInternal,
                    "cannot write a syscall instruction at the entry point of thread " +
                        std::to_string(host_tid_));
    }
    const int64_t result = run_injected(entry, number, args);
    if (!text.write(entry.rip, original.data(), original.size())) {
        throw Error(ErrorCode::TracerInternal,
                    "cannot restore the entry point of thread " + std::to_string(host_tid_));
    }
    set_registers(entry);
    flush_registers();
    release_signals(guest_mask);
    return result;
}

UniqueFd duplicate_guest_descriptor(pid_t host_pid, int fd) {
    const UniqueFd process(static_cast<int>(syscall(SYS_pidfd_open, host_pid, 0)));
    if (process.get() < 0) {
        return UniqueFd{};
    }
    return UniqueFd(static_cast<int>(syscall(SYS_pidfd_getfd, process.get(), fd, 0)));
}

long file_system_of(const UniqueFd& file) {
    struct statfs file_system {};
    return fstatfs(file.get(), &file_system) == 0 ? file_system.f_type : 0;
}

void Task::forget_stop() {
    strings_read_.clear();
    installed_.reset();
    if (epoch_ == nullptr) {
        context_ = {};
    }
}

Task::FileSystemContext& Task::file_system_context() {
    if (epoch_ != nullptr && *epoch_ != context_epoch_) {
        context_ = {};
        context_epoch_ = *epoch_;
    }
    return context_;
}

const Task::Directory& Task::directory(std::optional<Directory>& kept, const char* link) const {
    if (!kept) {
        UniqueFd file(open(("/proc/" + std::to_string(host_tid_) + "/" + link).c_str(), O_PATH | O_CLOEXEC));
        const long file_system = file_system_of(file);
        kept = Directory{std::move(file), file_system};
    }
    return *kept;
}

const Task::Directory& Task::working_directory() {
    return directory(file_system_context().working_directory, "cwd");
}

const std::string& Task::working_directory_path() {
    std::optional<std::string>& path = file_system_context().working_directory_path;
    if (!path) {
        path = procfs::working_directory_path(host_tid_);
    }
    return *path;
}

const Task::Directory& Task::root_directory() {
    return directory(file_system_context().root_directory, "root");
}

std::optional<mode_t> Task::file_creation_mask() {
    std::optional<std::optional<mode_t>>& mask = file_system_context().file_creation_mask;
    if (!mask) {
        mask = procfs::file_creation_mask(host_tid_);
    }
    return *mask;
}

std::optional<ino_t> Task::user_namespace() {
    std::optional<std::optional<ino_t>>& space = file_system_context().user_namespace;
    if (!space) {
        space = procfs::user_namespace(host_tid_);
    }
    return *space;
}

} // namespace hermit::tracer
