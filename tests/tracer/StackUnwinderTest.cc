// Unwinds a real stopped child process and checks that the frames name the functions and source lines.
#include "tracer/StackUnwinder.h"

#include <gtest/gtest.h>

#include <csignal>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

extern "C" __attribute__((noinline)) void hermit_unwinder_test_marker() {
    raise(SIGSTOP); // the stop the test unwinds from
    asm volatile("" ::: "memory");
}

extern "C" __attribute__((noinline)) void hermit_unwinder_test_caller() {
    hermit_unwinder_test_marker();
    asm volatile("" ::: "memory");
}

TEST(StackUnwinder, NamesFunctionsAndLinesOfAStoppedThread) {
    pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        ptrace(PTRACE_TRACEME, 0, nullptr, nullptr);
        hermit_unwinder_test_caller();
        _exit(0);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFSTOPPED(status));

    auto frames = hermit::tracer::unwind_stack(child);
    kill(child, SIGKILL);
    waitpid(child, &status, 0);

    std::string text = hermit::tracer::format_stack(frames);
    size_t marker = text.find("hermit_unwinder_test_marker");
    size_t caller = text.find("hermit_unwinder_test_caller");
    ASSERT_NE(marker, std::string::npos) << text;
    ASSERT_NE(caller, std::string::npos) << text;
    EXPECT_LT(marker, caller) << "innermost frame first:\n" << text;
    EXPECT_NE(text.find("StackUnwinderTest.cc:"), std::string::npos) << text;
}
