// strace-style rendering of syscalls from table rows and guest memory held in buffers.
#include "tracer/SyscallFormatter.h"
#include "SyscallBufferMemory.h"

#include <gtest/gtest.h>

#include <asm/unistd_64.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hermit::tracer {
namespace {

using testing::SyscallBufferMemory;

class SyscallFormatterTest : public ::testing::Test {
protected:
    std::string line(int number, std::array<uint64_t, 6> args, int64_t result) {
        PendingSyscall call = formatter.format_entry(memory, number, args);
        return formatter.format_exit(memory, call, result);
    }

    SyscallBufferMemory memory;
    SyscallFormatter formatter;
};

TEST_F(SyscallFormatterTest, OpenatWithFlags) {
    memory.place_string(0x1000, "/etc/passwd");
    EXPECT_EQ(line(__NR_openat, {static_cast<uint64_t>(AT_FDCWD), 0x1000, O_RDONLY | O_CLOEXEC}, 3),
              "openat(AT_FDCWD, \"/etc/passwd\", O_RDONLY|O_CLOEXEC) = 3");
    // The mode is shown only when the flags create a file.
    EXPECT_EQ(line(__NR_openat, {5, 0x1000, O_WRONLY | O_CREAT | O_TRUNC, 0644}, 4),
              "openat(5, \"/etc/passwd\", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 4");
    EXPECT_EQ(line(__NR_open, {0x1000, O_RDONLY}, -ENOENT),
              "open(\"/etc/passwd\", O_RDONLY) = -1 ENOENT (No such file or directory)");
}

TEST_F(SyscallFormatterTest, OpenFlagNames) {
    EXPECT_EQ(format_open_flags(O_RDONLY), "O_RDONLY");
    EXPECT_EQ(format_open_flags(O_RDWR | O_APPEND), "O_RDWR|O_APPEND");
    EXPECT_EQ(format_open_flags(O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_DIRECTORY),
              "O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY");
    EXPECT_EQ(format_open_flags(O_WRONLY | O_SYNC), "O_WRONLY|O_SYNC");
    EXPECT_EQ(format_open_flags(O_WRONLY | O_DSYNC), "O_WRONLY|O_DSYNC");
    EXPECT_EQ(format_open_flags(O_RDWR | O_TMPFILE), "O_RDWR|O_TMPFILE");
    EXPECT_EQ(format_open_flags(O_RDONLY | 0x40000000), "O_RDONLY|0x40000000");
}

TEST_F(SyscallFormatterTest, OtherFlagNames) {
    EXPECT_EQ(format_mmap_prot(PROT_NONE), "PROT_NONE");
    EXPECT_EQ(format_mmap_prot(PROT_READ | PROT_WRITE), "PROT_READ|PROT_WRITE");
    EXPECT_EQ(format_mmap_flags(MAP_PRIVATE | MAP_ANONYMOUS), "MAP_PRIVATE|MAP_ANONYMOUS");
    EXPECT_EQ(format_mmap_flags(MAP_PRIVATE | MAP_FIXED | MAP_DENYWRITE),
              "MAP_PRIVATE|MAP_FIXED|MAP_DENYWRITE");
    EXPECT_EQ(format_clone_flags(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD |
                                 CLONE_SYSVSEM | CLONE_SETTLS | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID),
              "CLONE_VM|CLONE_FS|CLONE_FILES|CLONE_SIGHAND|CLONE_THREAD|CLONE_SYSVSEM|CLONE_SETTLS|"
              "CLONE_PARENT_SETTID|CLONE_CHILD_CLEARTID");
    EXPECT_EQ(format_clone_flags(CLONE_CHILD_SETTID | CLONE_CHILD_CLEARTID | SIGCHLD),
              "CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD");
    EXPECT_EQ(format_at_flags(0), "0");
    EXPECT_EQ(format_at_flags(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH), "AT_SYMLINK_NOFOLLOW|AT_EMPTY_PATH");
    EXPECT_EQ(format_mode(0644), "0644");
    EXPECT_EQ(format_mode(0), "000");
    EXPECT_EQ(format_signal(SIGTERM), "SIGTERM");
    EXPECT_EQ(format_signal(99), "99");
}

TEST_F(SyscallFormatterTest, ReadShowsTheBytesReadAtExitTruncatedAt32) {
    std::string data = "root:x:0:0:root:/root:/bin/bash\nbin:x:1:1::/:/sbin/nologin\n";
    memory.place(0x2000, data.data(), data.size());
    PendingSyscall call = formatter.format_entry(memory, __NR_read, {3, 0x2000, 4096});
    EXPECT_EQ(formatter.format_exit(memory, call, static_cast<int64_t>(data.size())),
              "read(3, \"root:x:0:0:root:/root:/bin/bash\\n\"..., 4096) = 59");
    EXPECT_EQ(formatter.format_exit(memory, call, 4), "read(3, \"root\", 4096) = 4");
    // A failed read wrote nothing: the buffer is shown by address.
    EXPECT_EQ(formatter.format_exit(memory, call, -EAGAIN),
              "read(3, 0x2000, 4096) = -1 EAGAIN (Resource temporarily unavailable)");
}

TEST_F(SyscallFormatterTest, InputsAreRenderedAtEntry) {
    memory.place_string(0x2000, "hello\n");
    PendingSyscall call = formatter.format_entry(memory, __NR_write, {1, 0x2000, 6});
    memory.place_string(0x2000, "XXXXX\n"); // the guest reuses its buffer after the call
    EXPECT_EQ(formatter.format_exit(memory, call, 6), "write(1, \"hello\\n\", 6) = 6");
}

TEST_F(SyscallFormatterTest, EscapesLikeStrace) {
    const uint8_t bytes[] = {'a', '"', '\\', '\t', '\r', 0, 'b', 1, '2', 0x7f, 0xff, '\n'};
    EXPECT_EQ(quote_bytes(bytes, sizeof bytes, false), R"("a\"\\\t\r\0b\0012\177\377\n")");
    EXPECT_EQ(quote_bytes(bytes, 1, true), "\"a\"...");
    EXPECT_EQ(quote_bytes(nullptr, 0, false), "\"\"");
}

TEST_F(SyscallFormatterTest, ErrnoAndResultKinds) {
    EXPECT_EQ(SyscallFormatter::format_result(find_syscall("close"), -EBADF),
              " = -1 EBADF (Bad file descriptor)");
    EXPECT_EQ(SyscallFormatter::format_result(find_syscall("mmap"), 0x7f0000001000), " = 0x7f0000001000");
    EXPECT_EQ(SyscallFormatter::format_result(find_syscall("mmap"), -ENOMEM),
              " = -1 ENOMEM (Cannot allocate memory)");
    EXPECT_EQ(SyscallFormatter::format_result(find_syscall("read"), -512),
              " = ? ERESTARTSYS (To be restarted if SA_RESTART is set)");
    EXPECT_EQ(SyscallFormatter::format_result(find_syscall("exit_group"), 0), " = ?");
    EXPECT_EQ(SyscallFormatter::format_result(nullptr, -2000), " = -1 errno 2000");
}

TEST_F(SyscallFormatterTest, MmapAndUnknownCalls) {
    EXPECT_EQ(
        line(__NR_mmap,
             {0, 8192, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, static_cast<uint64_t>(-1), 0},
             0x7f0000000000),
        "mmap(NULL, 8192, PROT_READ|PROT_WRITE, MAP_PRIVATE|MAP_ANONYMOUS, -1, 0) = 0x7f0000000000");
    EXPECT_EQ(line(500, {1, 2, 3, 4, 5, 6}, -ENOSYS),
              "syscall_500(0x1, 0x2, 0x3, 0x4, 0x5, 0x6) = -1 ENOSYS (Function not implemented)");
    EXPECT_EQ(line(__NR_getpid, {}, 1), "getpid() = 1");
}

TEST_F(SyscallFormatterTest, StatAndTimeOutputs) {
    memory.place_string(0x1000, "/etc/passwd");
    struct stat st {};
    st.st_mode = S_IFREG | 0644;
    st.st_size = 3028;
    memory.place_value(0x3000, st);
    EXPECT_EQ(line(__NR_newfstatat, {static_cast<uint64_t>(AT_FDCWD), 0x1000, 0x3000, 0}, 0),
              "newfstatat(AT_FDCWD, \"/etc/passwd\", {st_mode=S_IFREG|0644, st_size=3028, ...}, 0) = 0");
    st.st_mode = S_IFCHR | 0666;
    st.st_rdev = makedev(1, 3);
    memory.place_value(0x3000, st);
    EXPECT_EQ(line(__NR_fstat, {0, 0x3000}, 0),
              "fstat(0, {st_mode=S_IFCHR|0666, st_rdev=makedev(0x1, 0x3), ...}) = 0");
    struct timespec ts {
        5, 250
    };
    memory.place_value(0x4000, ts);
    EXPECT_EQ(line(__NR_clock_gettime, {CLOCK_MONOTONIC, 0x4000}, 0),
              "clock_gettime(CLOCK_MONOTONIC, {tv_sec=5, tv_nsec=250}) = 0");
    EXPECT_EQ(line(__NR_nanosleep, {0x4000, 0}, 0), "nanosleep({tv_sec=5, tv_nsec=250}, NULL) = 0");
}

TEST_F(SyscallFormatterTest, ExecveArgvAndEnvironment) {
    memory.place_string(0x1000, "/bin/ls");
    memory.place_string(0x1100, "ls");
    memory.place_string(0x1200, "-l");
    memory.place_string(0x1300, "HOME=/root");
    uint64_t argv[] = {0x1100, 0x1200, 0};
    uint64_t envp[] = {0x1300, 0x1300, 0};
    memory.place(0x2000, argv, sizeof argv);
    memory.place(0x3000, envp, sizeof envp);
    EXPECT_EQ(line(__NR_execve, {0x1000, 0x2000, 0x3000}, 0),
              "execve(\"/bin/ls\", [\"ls\", \"-l\"], 0x3000 /* 2 vars */) = 0");
}

TEST_F(SyscallFormatterTest, AccessModes) {
    memory.place_string(0x1000, "/etc/ld.so.preload");
    EXPECT_EQ(line(__NR_access, {0x1000, R_OK}, -ENOENT),
              "access(\"/etc/ld.so.preload\", R_OK) = -1 ENOENT (No such file or directory)");
    EXPECT_EQ(line(__NR_faccessat, {static_cast<uint64_t>(AT_FDCWD), 0x1000, F_OK}, 0),
              "faccessat(AT_FDCWD, \"/etc/ld.so.preload\", F_OK) = 0");
    EXPECT_EQ(line(__NR_access, {0x1000, R_OK | X_OK}, 0), "access(\"/etc/ld.so.preload\", R_OK|X_OK) = 0");
}

TEST_F(SyscallFormatterTest, UnreadableMemoryFallsBackToTheAddress) {
    EXPECT_EQ(line(__NR_openat, {static_cast<uint64_t>(AT_FDCWD), 0xdead0000, O_RDONLY}, -EFAULT),
              "openat(AT_FDCWD, 0xdead0000, O_RDONLY) = -1 EFAULT (Bad address)");
}

TEST_F(SyscallFormatterTest, StringEndingAtAnUnmappedPage) {
    std::string path = "/tmp/x";
    memory.place(0x5000 - path.size() - 1, path.c_str(), path.size() + 1);
    EXPECT_EQ(line(__NR_unlink, {0x5000 - path.size() - 1}, 0), "unlink(\"/tmp/x\") = 0");
}

TEST_F(SyscallFormatterTest, SignalsAndSignalSets) {
    uint64_t mask = (1ULL << (SIGINT - 1)) | (1ULL << (SIGTERM - 1));
    memory.place_value(0x1000, mask);
    EXPECT_EQ(line(__NR_rt_sigprocmask, {SIG_BLOCK, 0x1000, 0, 8}, 0),
              "rt_sigprocmask(SIG_BLOCK, [INT TERM], NULL, 8) = 0");
    uint64_t almost_full = ~((1ULL << (SIGKILL - 1)) | (1ULL << (SIGSTOP - 1)));
    memory.place_value(0x1000, almost_full);
    EXPECT_EQ(line(__NR_rt_sigprocmask, {SIG_SETMASK, 0x1000, 0, 8}, 0),
              "rt_sigprocmask(SIG_SETMASK, ~[KILL STOP], NULL, 8) = 0");
    EXPECT_EQ(line(__NR_kill, {12, SIGKILL}, 0), "kill(12, SIGKILL) = 0");
    struct {
        uint64_t handler, flags, restorer, mask;
    } action{1, 0x04000000, 0x401000, 0};
    memory.place_value(0x2000, action);
    EXPECT_EQ(
        line(__NR_rt_sigaction, {SIGPIPE, 0x2000, 0, 8}, 0),
        "rt_sigaction(SIGPIPE, {sa_handler=SIG_IGN, sa_mask=[], sa_flags=SA_RESTORER, sa_restorer=0x401000}, "
        "NULL, 8) = 0");
}

TEST_F(SyscallFormatterTest, PipesWaitStatusAndDirents) {
    int fds[] = {3, 4};
    memory.place(0x1000, fds, sizeof fds);
    EXPECT_EQ(line(__NR_pipe2, {0x1000, O_CLOEXEC}, 0), "pipe2([3, 4], O_CLOEXEC) = 0");
    int status = 0x0100; // exited with 1
    memory.place_value(0x2000, status);
    EXPECT_EQ(line(__NR_wait4, {static_cast<uint64_t>(-1), 0x2000, 0, 0}, 42),
              "wait4(-1, [{WIFEXITED(s) && WEXITSTATUS(s) == 1}], 0, NULL) = 42");
    status = SIGKILL;
    memory.place_value(0x2000, status);
    EXPECT_EQ(line(__NR_wait4, {static_cast<uint64_t>(-1), 0x2000, 0, 0}, 42),
              "wait4(-1, [{WIFSIGNALED(s) && WTERMSIG(s) == SIGKILL}], 0, NULL) = 42");
    // Two linux_dirent64 records of 24 and 32 bytes.
    uint8_t dirents[56] = {};
    dirents[16] = 24;
    dirents[24 + 16] = 32;
    memory.place(0x3000, dirents, sizeof dirents);
    EXPECT_EQ(line(__NR_getdents64, {3, 0x3000, 32768}, 56),
              "getdents64(3, 0x3000 /* 2 entries */, 32768) = 56");
}

TEST_F(SyscallFormatterTest, WritevAndReadvIovecs) {
    memory.place_string(0x1000, "abc");
    memory.place_string(0x1100, "defgh");
    uint64_t iovecs[] = {0x1000, 3, 0x1100, 5};
    memory.place(0x2000, iovecs, sizeof iovecs);
    EXPECT_EQ(line(__NR_writev, {1, 0x2000, 2}, 8),
              "writev(1, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"defgh\", iov_len=5}], 2) = 8");
    EXPECT_EQ(line(__NR_readv, {0, 0x2000, 2}, 4),
              "readv(0, [{iov_base=\"abc\", iov_len=3}, {iov_base=\"d\", iov_len=5}], 2) = 4");
}

TEST_F(SyscallFormatterTest, ArraysStopAtTheLimitAndPrintUnreadableOnesAsTheirAddress) {
    SyscallFormatter limited(SyscallFormatOptions{.string_limit = 32, .array_limit = 2});
    memory.place_string(0x1000, "/bin/ls");
    memory.place_string(0x1100, "ls");
    memory.place_string(0x1200, "-l");
    memory.place_string(0x1300, "-a");
    uint64_t argv[] = {0x1100, 0x1200, 0x1300, 0};
    memory.place(0x2000, argv, sizeof argv);
    uint64_t two_arguments[] = {0x1100, 0x1200, 0};
    memory.place(0x2100, two_arguments, sizeof two_arguments);
    auto execve_line = [&](uint64_t argv_address) {
        PendingSyscall call = limited.format_entry(memory, __NR_execve, {0x1000, argv_address, 0});
        return limited.format_exit(memory, call, 0);
    };
    EXPECT_EQ(execve_line(0x2000), "execve(\"/bin/ls\", [\"ls\", \"-l\", ...], NULL) = 0");
    EXPECT_EQ(execve_line(0x2100), "execve(\"/bin/ls\", [\"ls\", \"-l\"], NULL) = 0");
    EXPECT_EQ(execve_line(0x9000), "execve(\"/bin/ls\", 0x9000, NULL) = 0");

    // The second iovec lies past the placed page: the whole array prints as its address.
    uint64_t iovec[] = {0x1100, 2};
    memory.place(0x3ff0, iovec, sizeof iovec);
    EXPECT_EQ(line(__NR_writev, {1, 0x3ff0, 2}, 2), "writev(1, 0x3ff0, 2) = 2");
    EXPECT_EQ(line(__NR_writev, {1, 0, 0}, -EFAULT), "writev(1, NULL, 0) = -1 EFAULT (Bad address)");
}

TEST_F(SyscallFormatterTest, PollShowsReadyEntriesAfterTheResult) {
    struct pollfd fds[] = {{3, POLLIN, 0}, {4, POLLIN | POLLOUT, 0}};
    memory.place(0x1000, fds, sizeof fds);
    PendingSyscall call = formatter.format_entry(memory, __NR_poll, {0x1000, 2, static_cast<uint64_t>(-1)});
    fds[1].revents = POLLOUT | POLLHUP;
    memory.place(0x1000, fds, sizeof fds);
    EXPECT_EQ(formatter.format_exit(memory, call, 1),
              "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN|POLLOUT}], 2, -1) = 1 ([{fd=4, "
              "revents=POLLOUT|POLLHUP}])");
    EXPECT_EQ(formatter.format_exit(memory, call, 0),
              "poll([{fd=3, events=POLLIN}, {fd=4, events=POLLIN|POLLOUT}], 2, -1) = 0");
}

TEST_F(SyscallFormatterTest, FutexAndUnfinishedCalls) {
    EXPECT_EQ(
        line(__NR_futex, {0x1000, 128 | 0, 2, 0, 0, 0}, -EAGAIN),
        "futex(0x1000, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0) = -1 EAGAIN (Resource temporarily unavailable)");
    EXPECT_EQ(formatter.format_unfinished(formatter.format_entry(memory, __NR_exit_group, {3})),
              "exit_group(3) = ?");
    EXPECT_EQ(formatter.format_unfinished(formatter.format_entry(memory, __NR_read, {0, 0x1000, 10})),
              "read(0, 0x1000, 10 <unfinished ...>");
}

} // namespace
} // namespace hermit::tracer
