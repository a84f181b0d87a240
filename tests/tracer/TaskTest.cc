// Task against a real child stopped under ptrace: registers, memory reads and writes, and a syscall run at
// the exec event. Syscall injection at a seccomp stop is tested through a Session (SessionTest).
#include "tracer/Task.h"
#include "tracer/ProcessMemoryFile.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

namespace hermit::tracer {
namespace {

// The child's copy of this buffer is what the tests read and write.
char g_message[64] = "hello from the child";

class StoppedChild : public ::testing::Test {
protected:
    void SetUp() override {
        child_ = fork();
        ASSERT_GE(child_, 0);
        if (child_ == 0) {
            ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
            raise(SIGSTOP);
            // Reached only after the test resumes us: report the (possibly rewritten) message.
            _exit(std::strcmp(g_message, "written by the tracer") == 0 ? 42 : 1);
        }
        int status = 0;
        ASSERT_EQ(waitpid(child_, &status, 0), child_);
        ASSERT_TRUE(WIFSTOPPED(status));
    }
    void TearDown() override {
        if (child_ > 0) {
            kill(child_, SIGKILL);
            waitpid(child_, nullptr, 0);
        }
    }
    int resume_and_wait() {
        ptrace(PTRACE_CONT, child_, nullptr, 0);
        int status = 0;
        waitpid(child_, &status, 0);
        child_ = 0;
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }
    pid_t child_ = 0;
};

TEST_F(StoppedChild, ReadsMemoryAndStrings) {
    Task task(child_, child_, child_, child_);
    auto text = task.read_string(reinterpret_cast<uint64_t>(g_message));
    ASSERT_TRUE(text);
    EXPECT_EQ(*text, "hello from the child");
    auto bytes = task.read_bytes(reinterpret_cast<uint64_t>(g_message), 5);
    ASSERT_TRUE(bytes);
    EXPECT_EQ(std::string(bytes->begin(), bytes->end()), "hello");
}

TEST_F(StoppedChild, UnmappedMemoryIsReported) {
    Task task(child_, child_, child_, child_);
    char buffer[8];
    EXPECT_FALSE(task.read(8, buffer, sizeof buffer));
    EXPECT_FALSE(task.read_string(16));
}

TEST_F(StoppedChild, WritesReachTheChild) {
    Task task(child_, child_, child_, child_);
    const char replacement[] = "written by the tracer";
    ASSERT_TRUE(task.write(reinterpret_cast<uint64_t>(g_message), replacement, sizeof replacement));
    EXPECT_EQ(resume_and_wait(), 42);
}

// A string is read once per stop; a change made behind the Task's back (as another guest thread could)
// shows after the Session's forget_stop() at the next stop, and hermit's own writes show at once.
TEST_F(StoppedChild, StringsAreReadOncePerStop) {
    Task task(child_, child_, child_, child_);
    const auto address = reinterpret_cast<uint64_t>(g_message);
    ASSERT_EQ(task.read_string(address), "hello from the child");
    const char elsewhere[] = "changed elsewhere";
    ASSERT_TRUE(ProcessMemoryFile(child_).write(address, elsewhere, sizeof elsewhere));
    EXPECT_EQ(task.read_string(address), "hello from the child");
    EXPECT_EQ(task.read_string(address, 7), "changed");
    task.forget_stop();
    EXPECT_EQ(task.read_string(address), "changed elsewhere");
    const char replacement[] = "written by the tracer";
    ASSERT_TRUE(task.write(address, replacement, sizeof replacement));
    EXPECT_EQ(task.read_string(address), "written by the tracer");
}

TEST_F(StoppedChild, RegistersAreCachedAndWrittenBack) {
    Task task(child_, child_, child_, child_);
    user_regs_struct registers = task.registers();
    EXPECT_NE(registers.rip, 0u);
    uint64_t original_r12 = registers.r12;
    registers.r12 = 0x1234;
    task.set_registers(registers);
    EXPECT_EQ(task.registers().r12, 0x1234u);
    task.flush_registers();
    EXPECT_EQ(task.registers().r12, 0x1234u); // re-read from the kernel
    registers.r12 = original_r12;
    task.set_registers(registers);
    task.flush_registers();
}

// The kernel resets some thread state at exec (CPUID faulting): the Session sets it again with a syscall run
// in the new program before its first instruction. The program then runs as if nothing happened: the entry
// point's bytes and the registers are its own again.
TEST(TaskAtExec, RunsASyscallBeforeTheNewProgramsFirstInstruction) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        raise(SIGSTOP);
        execl("/bin/sh", "sh", "-c", "exit 7", static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSTOPPED(status));
    ASSERT_EQ(ptrace(PTRACE_SETOPTIONS, child, nullptr,
                     PTRACE_O_TRACEEXEC | PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL),
              0);
    ASSERT_EQ(ptrace(PTRACE_CONT, child, nullptr, 0), 0);
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_EQ(status >> 16, PTRACE_EVENT_EXEC);

    Task task(child, child, child, child);
    const uint64_t entry = task.registers().rip;
    EXPECT_EQ(task.inject_syscall_after_exec(SYS_getppid, {}), getpid());
    EXPECT_EQ(task.registers().rip, entry);
    EXPECT_EQ(task.registers().rax, 0u) << "execve's own result";

    ASSERT_EQ(ptrace(PTRACE_CONT, child, nullptr, 0), 0);
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status)) << status;
    EXPECT_EQ(WEXITSTATUS(status), 7);
}

} // namespace
} // namespace hermit::tracer
