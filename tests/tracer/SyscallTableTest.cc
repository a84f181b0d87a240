// The syscall table as data: row numbering against the kernel header, lookups, policies, and the memory
// ranges the recorder captures at syscall exit.
#include "tracer/SyscallTable.h"
#include "SyscallBufferMemory.h"
#include "tracer/KernelNames.h"

#include <gtest/gtest.h>

#include <asm/unistd_64.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include <cerrno>
#include <set>

namespace hermit::tracer {
namespace {

using testing::SyscallBufferMemory;

const SyscallRow& row(std::string_view name) {
    const SyscallRow* found = find_syscall(name);
    EXPECT_NE(found, nullptr) << name;
    return *found;
}

TEST(SyscallTable, KnownNumbers) {
    EXPECT_EQ(row("read").number, 0);
    EXPECT_EQ(row("write").number, 1);
    EXPECT_EQ(row("openat").number, 257);
    EXPECT_EQ(row("clone3").number, 435);
    EXPECT_EQ(row("exit_group").number, 231);
    EXPECT_EQ(row("getrandom").number, 318);
    EXPECT_EQ(row("mseal").number, 462);
    ASSERT_NE(find_syscall(60), nullptr);
    EXPECT_EQ(find_syscall(60)->name, "exit");
    EXPECT_EQ(find_syscall(400), nullptr); // 335..423 are unassigned on x86_64
    EXPECT_EQ(find_syscall(-1), nullptr);
    EXPECT_EQ(find_syscall(100000), nullptr);
    EXPECT_EQ(find_syscall("no_such_call"), nullptr);
}

TEST(SyscallTable, AgreesWithTheInstalledKernelHeader) {
    // Every number the build host's header defines has a row of that number.
    EXPECT_EQ(find_syscall(__NR_read)->name, "read");
    EXPECT_EQ(find_syscall(__NR_newfstatat)->name, "newfstatat");
    EXPECT_EQ(find_syscall(__NR_statx)->name, "statx");
    EXPECT_EQ(find_syscall(__NR_rseq)->name, "rseq");
    EXPECT_EQ(find_syscall(__NR_close_range)->name, "close_range");
    EXPECT_EQ(find_syscall(__NR_futex_waitv)->name, "futex_waitv");
    EXPECT_EQ(find_syscall(__NR_set_mempolicy_home_node)->name, "set_mempolicy_home_node");
}

TEST(SyscallTable, RowsAreAscendingUniqueAndComplete) {
    auto table = syscall_table();
    // 0..334 and 424..462 on x86_64.
    EXPECT_EQ(table.size(), 335u + (462u - 424u + 1u));
    std::set<std::string_view> names;
    int previous = -1;
    for (const SyscallRow& entry : table) {
        EXPECT_GT(entry.number, previous);
        previous = entry.number;
        EXPECT_TRUE(names.insert(entry.name).second) << entry.name;
        EXPECT_LE(entry.arg_count, 6);
        for (size_t i = 0; i < entry.arg_count; ++i) {
            if (entry.args[i].size_arg >= 0) {
                EXPECT_LT(entry.args[i].size_arg, entry.arg_count) << entry.name;
            }
        }
        EXPECT_EQ(find_syscall(entry.number), &entry);
        EXPECT_EQ(find_syscall(entry.name), &entry);
    }
}

TEST(SyscallTable, ArgumentKindsOfCommonCalls) {
    const SyscallRow& read = row("read");
    EXPECT_EQ(read.arg_count, 3);
    EXPECT_EQ(read.args[0].kind, ArgKind::Fd);
    EXPECT_EQ(read.args[1].kind, ArgKind::OutBuffer);
    EXPECT_EQ(read.args[1].size_arg, 2);
    const SyscallRow& openat = row("openat");
    EXPECT_EQ(openat.args[0].kind, ArgKind::DirFd);
    EXPECT_EQ(openat.args[1].kind, ArgKind::String);
    EXPECT_EQ(openat.args[2].kind, ArgKind::OpenFlags);
    EXPECT_EQ(row("mmap").result, ResultKind::Address);
    EXPECT_EQ(row("exit_group").result, ResultKind::NoReturn);
    EXPECT_EQ(row("getpid").arg_count, 0);
    EXPECT_EQ(row("mmap").arg_count, 6);
}

TEST(SyscallTable, DeterminismPolicy) {
    EXPECT_EQ(row("getpid").determinism, Determinism::Pure);
    EXPECT_EQ(row("mmap").determinism, Determinism::Pure);
    EXPECT_TRUE(has(row("clock_gettime").determinism, Determinism::TimeSource));
    EXPECT_TRUE(has(row("gettimeofday").determinism, Determinism::TimeSource));
    EXPECT_TRUE(has(row("getrandom").determinism, Determinism::RandomSource));
    EXPECT_TRUE(has(row("uname").determinism, Determinism::HostFacts));
    EXPECT_TRUE(has(row("sysinfo").determinism, Determinism::HostFacts));
    EXPECT_TRUE(has(row("newfstatat").determinism, Determinism::FileMetadata));
    EXPECT_TRUE(has(row("getdents64").determinism, Determinism::FileMetadata));
    EXPECT_TRUE(has(row("futex").determinism, Determinism::Scheduling));
    EXPECT_TRUE(has(row("clone").determinism, Determinism::Scheduling));
    EXPECT_TRUE(has(row("wait4").determinism, Determinism::Blocking));
    EXPECT_FALSE(has(row("wait4").determinism, Determinism::RandomSource));
}

TEST(KernelNames, ErrnoNamesAndMessages) {
    EXPECT_EQ(errno_name(EPERM), "EPERM");
    EXPECT_EQ(errno_name(ENOENT), "ENOENT");
    EXPECT_EQ(errno_message(ENOENT), "No such file or directory");
    EXPECT_EQ(errno_name(EAGAIN), "EAGAIN");
    EXPECT_EQ(errno_name(EDEADLK), "EDEADLK");
    EXPECT_EQ(errno_name(EOPNOTSUPP), "EOPNOTSUPP");
    EXPECT_EQ(errno_name(EHWPOISON), "EHWPOISON");
    EXPECT_EQ(errno_name(512), "ERESTARTSYS");
    EXPECT_EQ(errno_name(516), "ERESTART_RESTARTBLOCK");
    EXPECT_EQ(errno_name(0), "");
    EXPECT_EQ(errno_name(4000), "");
    for (int error = 1; error <= 133; ++error) {
        if (error == 41 || error == 58) { // never assigned on Linux
            continue;
        }
        EXPECT_FALSE(errno_name(error).empty()) << error;
        EXPECT_EQ(errno_message(error), std::string_view(strerror(error))) << error;
    }
}

TEST(KernelNames, SignalNames) {
    EXPECT_EQ(signal_name(SIGHUP), "SIGHUP");
    EXPECT_EQ(signal_name(SIGKILL), "SIGKILL");
    EXPECT_EQ(signal_name(SIGCHLD), "SIGCHLD");
    EXPECT_EQ(signal_name(SIGSYS), "SIGSYS");
    EXPECT_EQ(signal_name(32), "SIGRTMIN");
    EXPECT_EQ(signal_name(33), "SIGRT_1");
    EXPECT_EQ(signal_name(64), "SIGRT_32");
    EXPECT_EQ(signal_name(0), "");
    EXPECT_EQ(signal_name(65), "");
}

std::array<uint64_t, 6> args(uint64_t a = 0, uint64_t b = 0, uint64_t c = 0, uint64_t d = 0, uint64_t e = 0,
                             uint64_t f = 0) {
    return {a, b, c, d, e, f};
}

using Ranges = std::vector<OutputRange>;

TEST(SyscallOutputs, ReadWritesTheResultCount) {
    EXPECT_EQ(syscall_outputs(row("read"), args(3, 0x1000, 4096), 1234), (Ranges{{0x1000, 1234}}));
    EXPECT_EQ(syscall_outputs(row("pread64"), args(3, 0x1000, 4096, 10), 7), (Ranges{{0x1000, 7}}));
    EXPECT_TRUE(syscall_outputs(row("read"), args(3, 0x1000, 4096), 0).empty());
    EXPECT_TRUE(syscall_outputs(row("read"), args(3, 0x1000, 4096), -EAGAIN).empty());
    EXPECT_TRUE(syscall_outputs(row("write"), args(1, 0x1000, 5), 5).empty());
    EXPECT_EQ(syscall_outputs(row("getrandom"), args(0x2000, 16, 0), 16), (Ranges{{0x2000, 16}}));
    EXPECT_EQ(syscall_outputs(row("readlinkat"), args(-100, 0x100, 0x2000, 4096), 9), (Ranges{{0x2000, 9}}));
    EXPECT_EQ(syscall_outputs(row("getcwd"), args(0x2000, 4096), 6), (Ranges{{0x2000, 6}}));
}

TEST(SyscallOutputs, FixedSizeStructures) {
    EXPECT_EQ(sizeof(struct stat), 144u);
    EXPECT_EQ(syscall_outputs(row("fstat"), args(3, 0x3000), 0), (Ranges{{0x3000, sizeof(struct stat)}}));
    EXPECT_EQ(syscall_outputs(row("stat"), args(0x100, 0x3000), 0), (Ranges{{0x3000, 144}}));
    EXPECT_EQ(syscall_outputs(row("lstat"), args(0x100, 0x3000), 0), (Ranges{{0x3000, 144}}));
    EXPECT_EQ(syscall_outputs(row("newfstatat"), args(-100, 0x100, 0x3000, 0), 0), (Ranges{{0x3000, 144}}));
    EXPECT_EQ(syscall_outputs(row("statx"), args(-100, 0x100, 0, 0xfff, 0x3000), 0), (Ranges{{0x3000, 256}}));
    EXPECT_EQ(syscall_outputs(row("uname"), args(0x3000), 0), (Ranges{{0x3000, sizeof(struct utsname)}}));
    EXPECT_EQ(syscall_outputs(row("sysinfo"), args(0x3000), 0), (Ranges{{0x3000, sizeof(struct sysinfo)}}));
    EXPECT_EQ(syscall_outputs(row("clock_gettime"), args(1, 0x3000), 0), (Ranges{{0x3000, 16}}));
    EXPECT_EQ(syscall_outputs(row("gettimeofday"), args(0x3000, 0), 0), (Ranges{{0x3000, 16}}));
    EXPECT_EQ(syscall_outputs(row("time"), args(0x3000), 1700000000), (Ranges{{0x3000, 8}}));
    EXPECT_TRUE(syscall_outputs(row("time"), args(0), 1700000000).empty());
    EXPECT_EQ(syscall_outputs(row("pipe2"), args(0x3000, 0), 0), (Ranges{{0x3000, 8}}));
    EXPECT_EQ(syscall_outputs(row("socketpair"), args(1, 1, 0, 0x3000), 0), (Ranges{{0x3000, 8}}));
    EXPECT_EQ(syscall_outputs(row("wait4"), args(-1, 0x3000, 0, 0x4000), 42),
              (Ranges{{0x3000, 4}, {0x4000, sizeof(struct rusage)}}));
    EXPECT_EQ(syscall_outputs(row("getrusage"), args(0, 0x3000), 0), (Ranges{{0x3000, 144}}));
    EXPECT_EQ(syscall_outputs(row("times"), args(0x3000), 12345), (Ranges{{0x3000, 32}}));
    EXPECT_EQ(syscall_outputs(row("prlimit64"), args(0, 7, 0, 0x3000), 0), (Ranges{{0x3000, 16}}));
    EXPECT_EQ(syscall_outputs(row("rt_sigprocmask"), args(0, 0x100, 0x3000, 8), 0), (Ranges{{0x3000, 8}}));
    EXPECT_EQ(syscall_outputs(row("rt_sigaction"), args(2, 0x100, 0x3000, 8), 0), (Ranges{{0x3000, 32}}));
    EXPECT_EQ(syscall_outputs(row("getcpu"), args(0x3000, 0x3004, 0), 0), (Ranges{{0x3000, 4}, {0x3004, 4}}));
    EXPECT_EQ(syscall_outputs(row("sched_getaffinity"), args(0, 128, 0x3000), 8), (Ranges{{0x3000, 8}}));
    EXPECT_EQ(syscall_outputs(row("ioctl"), args(0, 0x5401, 0x3000), 0), (Ranges{{0x3000, 36}}));
    EXPECT_EQ(syscall_outputs(row("ioctl"), args(0, 0x541B, 0x3000), 0), (Ranges{{0x3000, 4}}));
    EXPECT_TRUE(syscall_outputs(row("ioctl"), args(0, 0x5401, 0x3000), -ENOTTY).empty());
}

TEST(SyscallOutputs, ResultSizedArrays) {
    EXPECT_EQ(syscall_outputs(row("getdents64"), args(3, 0x5000, 32768), 480), (Ranges{{0x5000, 480}}));
    EXPECT_EQ(syscall_outputs(row("epoll_wait"), args(4, 0x5000, 64, -1), 3), (Ranges{{0x5000, 36}}));
    EXPECT_EQ(syscall_outputs(row("poll"), args(0x5000, 3, 0), 1), (Ranges{{0x5000, 24}}));
    EXPECT_EQ(syscall_outputs(row("getgroups"), args(8, 0x5000), 2), (Ranges{{0x5000, 8}}));
    EXPECT_TRUE(syscall_outputs(row("getgroups"), args(0, 0), 2).empty());
    EXPECT_EQ(syscall_outputs(row("select"), args(65, 0x5000, 0, 0, 0), 1), (Ranges{{0x5000, 16}}));
}

TEST(SyscallOutputs, IovecsAndSocketAddressesNeedMemory) {
    SyscallBufferMemory memory;
    struct Iovec {
        uint64_t base, length;
    };
    Iovec iovecs[] = {{0x7000, 4}, {0x8000, 100}, {0x9000, 50}};
    memory.place(0x6000, iovecs, sizeof iovecs);
    EXPECT_TRUE(syscall_outputs(row("readv"), args(3, 0x6000, 3), 10).empty());
    EXPECT_EQ(syscall_outputs(row("readv"), args(3, 0x6000, 3), 10, memory),
              (Ranges{{0x7000, 4}, {0x8000, 6}}));
    EXPECT_EQ(syscall_outputs(row("preadv"), args(3, 0x6000, 3, 0), 154, memory),
              (Ranges{{0x7000, 4}, {0x8000, 100}, {0x9000, 50}}));

    memory.place_value<uint32_t>(0xa000, 16); // the kernel stored the address length
    EXPECT_EQ(syscall_outputs(row("accept4"), args(3, 0xb000, 0xa000, 0), 5, memory),
              (Ranges{{0xb000, 16}, {0xa000, 4}}));
    EXPECT_EQ(syscall_outputs(row("getpeername"), args(3, 0xb000, 0xa000), 0, memory),
              (Ranges{{0xb000, 16}, {0xa000, 4}}));
    EXPECT_EQ(syscall_outputs(row("recvfrom"), args(3, 0xc000, 512, 0, 0xb000, 0xa000), 100, memory),
              (Ranges{{0xc000, 100}, {0xb000, 16}, {0xa000, 4}}));
    memory.place_value<uint32_t>(0xa100, 4);
    EXPECT_EQ(syscall_outputs(row("getsockopt"), args(3, 1, 4, 0xd000, 0xa100), 0, memory),
              (Ranges{{0xd000, 4}, {0xa100, 4}}));

    struct {
        uint64_t name;
        uint32_t name_length, padding;
        uint64_t iov, iov_count, control, control_length;
        int32_t flags, padding2;
    } message{0xb000, 16, 0, 0x6000, 2, 0, 0, 0, 0};
    memory.place(0xe000, &message, sizeof message);
    EXPECT_EQ(syscall_outputs(row("recvmsg"), args(3, 0xe000, 0), 8, memory),
              (Ranges{{0xe000, 56}, {0xb000, 16}, {0x7000, 4}, {0x8000, 4}}));
}

} // namespace
} // namespace hermit::tracer
