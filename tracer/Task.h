#pragma once
// Task: one guest thread under ptrace. It is only touched while ptrace-stopped; register reads are cached
// for the duration of a stop and written back on resume. Ids: host_tid() is what ptrace uses; tid() and
// pid() are what the guest sees inside its pid namespace (deterministic, used in events and policies).

#include "GuestMemory.h"
#include "SharedMemory.h"
#include "SyscallInterceptor.h"
#include "formats/FileIo.h"

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/user.h>

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace hermit::tracer {

// What an open hermit made for the guest found (virt/GuestOpen.h): the file's type, S_IFREG or S_IFDIR, and
// its device and inode (0 for the file an O_EXCL open made, which nothing else can name yet).
struct OpenedFileInfo {
    mode_t type = 0;
    dev_t device = 0;
    ino_t inode = 0;

    static OpenedFileInfo of(const struct stat& file) {
        return OpenedFileInfo{file.st_mode & S_IFMT, file.st_dev, file.st_ino};
    }
};

class Task : public GuestMemory {
public:
    Task(pid_t host_tid, pid_t host_pid, int32_t guest_tid, int32_t guest_pid,
         bool has_hermit_credentials = false);

    pid_t host_tid() const { return host_tid_; }
    pid_t host_pid() const { return host_pid_; }
    int32_t tid() const { return guest_tid_; }
    int32_t pid() const { return guest_pid_; }
    // Its credentials are hermit's and cannot change (LaunchedGuest::has_hermit_credentials); false when
    // not known, which callers check through /proc.
    bool has_hermit_credentials() const { return has_hermit_credentials_; }

    // Registers at the current stop (read once per stop).
    const user_regs_struct& registers();
    // Replaces the registers; written back before the task resumes.
    void set_registers(const user_regs_struct& registers);
    // Writes dirty registers to the kernel and forgets the cache; called by the Session before resuming.
    void flush_registers();

    bool read(uint64_t address, void* buffer, size_t length) override;
    bool write(uint64_t address, const void* buffer, size_t length) override;
    // Strings are read once per stop: the interceptors each look at a syscall's path, as the kernel takes
    // it once. Writes by hermit forget them, and so does forget_stop(), which the Session calls at each new
    // stop of the thread.
    std::optional<std::string> read_string(uint64_t address, size_t max_length = 4096) override;

    // A descriptor that hermit opened for the guest and installed at this stop, with what the open found
    // (off pseudo file systems): whoever looks at the new descriptor at the syscall's exit need not ask
    // /proc what it names.
    void note_installed(int fd, const OpenedFileInfo& info) { installed_ = Installed{fd, info}; }
    std::optional<OpenedFileInfo> installed_file(int fd) const {
        return installed_ && installed_->fd == fd ? std::optional(installed_->info) : std::nullopt;
    }

    // The thread's syscall buffer (SyscallBuffer.h), which the preload library registered: its address in
    // the guest, 0 for none (a new thread, or a new program after an exec, has none until it registers
    // one), and hermit's mapping of the same memory.
    void set_syscall_buffer(uint64_t address, SharedMemory memory) {
        syscall_buffer_ = address;
        syscall_buffer_memory_ = std::move(memory);
    }
    uint64_t syscall_buffer() const { return syscall_buffer_; }
    std::span<uint8_t> syscall_buffer_memory() const { return syscall_buffer_memory_.bytes(); }

    // Forgets what the thread's last stop read or installed: it ran since.
    void forget_stop();

    // A timed wait or sleep the thread is parked in ends at this elapsed virtual time (VirtualClock), unless
    // it is over before: set by the Session when it parks the thread at the syscall's entry, cleared once
    // the syscall is decided otherwise. The Virtualizer's sleeps read it when the thread comes back.
    void set_wait_deadline(std::optional<uint64_t> deadline_ns) { wait_deadline_ns_ = deadline_ns; }
    std::optional<uint64_t> wait_deadline() const { return wait_deadline_ns_; }

    // The thread's file-system context as /proc shows it: its working directory and root (O_PATH
    // descriptors, invalid when /proc cannot open them, with the f_type of their file system, 0 when
    // unknown), its umask and its user namespace (nullopt when unreadable). Each is read at the first need,
    // then kept while the epoch the Task follows stays: the Session moves it on at every syscall of any guest
    // thread that may change one of them (chdir, umask, unshare, ...), and such a syscall runs while the
    // thread that makes it holds the schedule's token. A Task that follows no epoch keeps them until its next
    // stop.
    void follow_file_system_epoch(const uint64_t* epoch) { epoch_ = epoch; }
    struct Directory {
        UniqueFd file;
        long file_system = 0;
    };
    const Directory& working_directory();
    // The working directory's path (/proc/<tid>/cwd); empty when unreadable.
    const std::string& working_directory_path();
    const Directory& root_directory();
    std::optional<mode_t> file_creation_mask();
    std::optional<ino_t> user_namespace();

    // Where `bytes` of data for a syscall the tracer rewrites or injects can go for the syscall's duration:
    // 16-byte aligned below the guest's stack pointer, past the 128-byte red zone the x86_64 ABI lets leaf
    // functions use without moving rsp.
    uint64_t scratch_below_stack(uint64_t bytes);

    // Runs `number(args...)` in the guest from the current syscall-entry (seccomp) or syscall-exit stop,
    // then puts the task back at that stop with its registers, so the guest's own syscall proceeds or
    // returns as before. Signals that come meanwhile stay pending. Returns the raw result.
    int64_t inject_syscall(int number, const std::array<uint64_t, 6>& args);
    // At a PTRACE_EVENT_EXEC stop: lets the execve return, then runs `number(args...)` in the new program
    // before its first instruction, through a syscall instruction written over its entry point for the call's
    // duration (the kernel resets some of a thread's state at exec, CPUID faulting among it). The task is
    // left at its execve's syscall-exit stop, with the registers the program starts with.
    int64_t inject_syscall_after_exec(int number, const std::array<uint64_t, 6>& args);

private:
    std::optional<uint64_t> wait_deadline_ns_;
    // Syscall injection: all signals blocked meanwhile (returns the guest's mask), and given back.
    uint64_t hold_signals();
    void release_signals(uint64_t guest_mask);
    // PTRACE_`request`s the thread and waits for its next stop; throws if it died.
    int resume_and_wait(int request);
    // Runs the thread to its next syscall-exit stop.
    void run_to_syscall_exit();
    // Runs `number(args...)` from registers `at` (rip on a syscall instruction) to its exit stop.
    int64_t run_injected(const user_regs_struct& at, int number, const std::array<uint64_t, 6>& args);

    pid_t host_tid_;
    pid_t host_pid_;
    int32_t guest_tid_;
    int32_t guest_pid_;
    bool has_hermit_credentials_;
    user_regs_struct registers_{};
    bool registers_valid_ = false;
    bool registers_dirty_ = false;
    struct StringRead {
        uint64_t address;
        size_t max_length;
        std::string text;
    };
    std::vector<StringRead> strings_read_;
    struct Installed {
        int fd;
        OpenedFileInfo info;
    };
    std::optional<Installed> installed_;
    uint64_t syscall_buffer_ = 0;
    SharedMemory syscall_buffer_memory_;
    struct FileSystemContext {
        std::optional<Directory> working_directory;
        std::optional<std::string> working_directory_path;
        std::optional<Directory> root_directory;
        std::optional<std::optional<mode_t>> file_creation_mask;
        std::optional<std::optional<ino_t>> user_namespace;
    };
    // The context, emptied first when the epoch moved since it was read.
    FileSystemContext& file_system_context();
    // `kept`, opened first from the thread's /proc `link` (cwd, root) when empty.
    const Directory& directory(std::optional<Directory>& kept, const char* link) const;
    const uint64_t* epoch_ = nullptr;
    uint64_t context_epoch_ = 0;
    FileSystemContext context_;
};

// The syscall a thread is stopped in (at its entry, or interrupted in it), from its registers.
SyscallStop syscall_of(const user_regs_struct& registers);

// `at` with the registers that make its syscall instruction call `number(args...)`.
user_regs_struct syscall_registers(const user_regs_struct& at, int number,
                                   const std::array<uint64_t, 6>& args);

// The f_type (statfs) of the file system that holds `file`; 0 when it cannot be told.
long file_system_of(const UniqueFd& file);

// Descriptor `fd` of guest process `host_pid` as a descriptor of hermit: the same open file (offset, flags,
// pipe buffer), from pidfd_getfd(2). Invalid when the process or the descriptor is gone.
UniqueFd duplicate_guest_descriptor(pid_t host_pid, int fd);

} // namespace hermit::tracer
