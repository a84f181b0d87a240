#include "replay/RecordedSyscalls.h"
#include "tracer/SyscallBuffer.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace hermit::replay {
namespace {

TEST(RecordedSyscalls, InputsAreEmulatedOpensAndWritesHaveTheirOwnTreatment) {
    EXPECT_EQ(replay_treatment(SYS_read), ReplayTreatment::EmulateFromLog);
    EXPECT_EQ(replay_treatment(SYS_newfstatat), ReplayTreatment::EmulateFromLog);
    EXPECT_EQ(replay_treatment(SYS_openat), ReplayTreatment::OpenFile);
    EXPECT_EQ(replay_treatment(SYS_write), ReplayTreatment::Write);
    EXPECT_EQ(replay_treatment(SYS_mmap), ReplayTreatment::NotRecorded);
    EXPECT_EQ(replay_treatment(SYS_futex), ReplayTreatment::NotRecorded);
}

// What a recording does not copy: the system's directories, /bin and /sbin included (links into /usr on
// merged-/usr systems, where `sh -c` finds /bin/sh); a name that only starts like one is the program's.
TEST(RecordedSyscalls, SystemDirectoriesAreNotCopied) {
    EXPECT_TRUE(is_system_file("/bin/sh"));
    EXPECT_TRUE(is_system_file("/sbin/ldconfig"));
    EXPECT_TRUE(is_system_file("/usr/bin/python3"));
    EXPECT_TRUE(is_system_file("/etc/passwd"));
    EXPECT_FALSE(is_system_file("/binaries/tool"));
    EXPECT_FALSE(is_system_file("/tmp/project/a.out"));
    EXPECT_FALSE(is_system_file("/home/user/bin/tool"));
    EXPECT_TRUE(is_system_file("/dev/null"));
    EXPECT_FALSE(is_system_file("/dev/shm/project/a.c"));
}

TEST(RecordedSyscalls, TrappedSetIsExactlyTheRecordedOnes) {
    EXPECT_TRUE(recorded_syscalls().contains(tracer::syscall_buffer::kRegisterSyscall));
    for (int number : recorded_syscalls()) {
        if (number == tracer::syscall_buffer::kRegisterSyscall) {
            continue; // recorded as any syscall, with no treatment of its own
        }
        EXPECT_NE(replay_treatment(number), ReplayTreatment::NotRecorded) << number;
    }
    EXPECT_TRUE(recorded_syscalls().contains(SYS_openat));
    EXPECT_FALSE(recorded_syscalls().contains(SYS_brk));
}

TEST(RecordedSyscalls, ReadsAndWritesAreTrappedByDescriptorOnly) {
    for (int number : descriptor_syscalls()) {
        EXPECT_NE(replay_treatment(number), ReplayTreatment::NotRecorded) << number;
        EXPECT_FALSE(recorded_syscalls().contains(number)) << number;
    }
    EXPECT_TRUE(descriptor_syscalls().contains(SYS_read));
    EXPECT_TRUE(descriptor_syscalls().contains(SYS_write));
}

TEST(RecordedSyscalls, RegularFilesAndNullDevicesAreNotTrappedPipesAndProcFilesAre) {
    int pipe_ends[2];
    ASSERT_EQ(pipe(pipe_ends), 0);
    const int regular = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    const int null_device = open("/dev/null", O_RDONLY | O_CLOEXEC);
    const int random_device = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    const int proc_file = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
    const int directory = open("/tmp", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    EXPECT_FALSE(must_trap_descriptor(getpid(), regular));
    EXPECT_FALSE(must_trap_descriptor(getpid(), null_device));
    EXPECT_FALSE(must_trap_descriptor(getpid(), directory));
    EXPECT_TRUE(must_trap_descriptor(getpid(), pipe_ends[0]));
    EXPECT_TRUE(must_trap_descriptor(getpid(), random_device));
    EXPECT_TRUE(must_trap_descriptor(getpid(), proc_file));
    EXPECT_TRUE(must_trap_descriptor(getpid(), 999)); // not open
    for (int fd : {pipe_ends[0], pipe_ends[1], regular, null_device, random_device, proc_file, directory}) {
        close(fd);
    }
}

} // namespace
} // namespace hermit::replay
