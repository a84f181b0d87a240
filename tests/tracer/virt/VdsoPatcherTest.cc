#include "tracer/virt/VdsoPatcher.h"
#include "tracer/ProcessMemoryFile.h"
#include "tracer/Task.h"

#include "LocalMemory.h"

#include <gtest/gtest.h>

#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <ctime>

namespace hermit::tracer::virt {
namespace {

uint64_t own_vdso() {
    return getauxval(AT_SYSINFO_EHDR);
}

std::optional<VdsoFunction> find(const std::vector<VdsoFunction>& functions, const std::string& name) {
    const auto found = std::find_if(functions.begin(), functions.end(),
                                    [&](const VdsoFunction& f) { return f.name == name; });
    return found == functions.end() ? std::nullopt : std::optional(*found);
}

TEST(VdsoPatcherTest, FindsTheTimeFunctionsOfTheRealVdso) {
    if (own_vdso() == 0) {
        GTEST_SKIP() << "this process has no vDSO";
    }
    testing::LocalMemory memory;
    const auto functions = vdso_functions(memory, own_vdso());
    const auto clock_gettime_function = find(functions, "__vdso_clock_gettime");
    ASSERT_TRUE(clock_gettime_function);
    EXPECT_GE(clock_gettime_function->size, 8u);
    EXPECT_GT(clock_gettime_function->address, own_vdso());
    EXPECT_TRUE(find(functions, "__vdso_gettimeofday"));
    EXPECT_TRUE(find(functions, "__vdso_time"));
}

// Every exec parses the vDSO: from one copy of the image, not a read of the guest per header and symbol.
TEST(VdsoPatcherTest, ReadsTheImageOutOfTheGuestInTwoReads) {
    if (own_vdso() == 0) {
        GTEST_SKIP() << "this process has no vDSO";
    }
    struct CountingMemory : testing::LocalMemory {
        int reads = 0;
        bool read(uint64_t address, void* buffer, size_t length) override {
            ++reads;
            return LocalMemory::read(address, buffer, length);
        }
    } memory;
    EXPECT_TRUE(find(vdso_functions(memory, own_vdso()), "__vdso_clock_gettime"));
    EXPECT_EQ(memory.reads, 2) << "the ELF header, then the whole image";
}

TEST(VdsoPatcherTest, RejectsMemoryThatIsNotAnElfImage) {
    testing::LocalMemory memory;
    static const char not_elf[4096] = "not an ELF file";
    EXPECT_TRUE(vdso_functions(memory, reinterpret_cast<uint64_t>(not_elf)).empty());
}

TEST(VdsoPatcherTest, StubIsMovSyscallRet) {
    EXPECT_EQ(syscall_stub(228), (std::vector<uint8_t>{0xb8, 228, 0, 0, 0, 0x0f, 0x05, 0xc3}));
}

// A real child process gets its vDSO patched while stopped; afterwards its clock_gettime entry point holds
// the stub, and calling it still works because it is now the real system call.
TEST(VdsoPatcherTest, PatchesAStoppedChildOnly) {
    if (own_vdso() == 0) {
        GTEST_SKIP() << "this process has no vDSO";
    }
    testing::LocalMemory local;
    const auto target = find(vdso_functions(local, own_vdso()), "__vdso_clock_gettime");
    ASSERT_TRUE(target);
    const std::vector<uint8_t> stub = syscall_stub(SYS_clock_gettime);

    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        raise(SIGSTOP);
        const bool patched =
            std::memcmp(reinterpret_cast<void*>(target->address), stub.data(), stub.size()) == 0;
        using ClockGettime = int (*)(clockid_t, timespec*);
        timespec now{};
        const int result = reinterpret_cast<ClockGettime>(target->address)(CLOCK_MONOTONIC, &now);
        _exit(patched && result == 0 && now.tv_sec > 0 ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, WUNTRACED), child);
    ASSERT_TRUE(WIFSTOPPED(status));
    Task child_memory(child, child, child, child);
    ProcessMemoryFile child_text(child);
    const auto patched = patch_vdso(child_text, vdso_functions(child_memory, own_vdso()));
    EXPECT_NE(std::find(patched.begin(), patched.end(), "__vdso_clock_gettime"), patched.end());
    kill(child, SIGCONT);
    ASSERT_EQ(waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "child saw no stub or clock_gettime failed";
    // The parent's own vDSO is untouched: the write copied the page for the child only.
    EXPECT_NE(std::memcmp(reinterpret_cast<void*>(target->address), stub.data(), stub.size()), 0);
}

} // namespace
} // namespace hermit::tracer::virt
