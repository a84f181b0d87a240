// A real child installs SeccompFilter::notifying for getppid; this test process is its tracer's stand-in
// and answers from the listener, without ptrace.
#include "tracer/SyscallNotifications.h"
#include "tracer/SeccompFilter.h"
#include "tracer/Task.h"

#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

namespace hermit::tracer {
namespace {

constexpr long kAnswer = 4242;

// The child's checks, one bit each, as its exit code.
int notified_child(int report_fd) {
    const long real_parent = getppid();
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
    // getpgid only when the low byte of its argument is 7.
    const int listener =
        SeccompFilter::notifying({SYS_getppid}, {{SYS_getpgid, 0, 0xff, 7}}).install_with_listener();
    if (listener < 0 || write(report_fd, &listener, sizeof listener) != sizeof listener) {
        return 99;
    }
    int code = 0;
    code |= syscall(SYS_getppid) == kAnswer ? 1 : 0;     // answered by the listener
    code |= syscall(SYS_getppid) == real_parent ? 2 : 0; // run in the kernel
    code |= syscall(SYS_getppid, 0, 0, 0, 0, 0, SeccompFilter::kRetraceMarker) == real_parent ? 4 : 0;
    code |= syscall(SYS_getpid) == getpid() ? 8 : 0;               // not notified at all
    code |= syscall(SYS_getpgid, 0x107) == kAnswer ? 16 : 0;       // its condition holds: answered
    code |= syscall(SYS_getpgid, 0) == getpgid(getpid()) ? 32 : 0; // it does not: run in the kernel
    return code;
}

TEST(SyscallNotifications, AnswerRunInKernelConditionsAndTheMarkerPassesThrough) {
    int report[2];
    ASSERT_EQ(pipe(report), 0);
    const pid_t child = fork();
    if (child == 0) {
        _exit(notified_child(report[1]));
    }
    int child_listener = -1;
    ASSERT_EQ(read(report[0], &child_listener, sizeof child_listener), sizeof child_listener);
    SyscallNotifications notifications(duplicate_guest_descriptor(child, child_listener));
    ASSERT_TRUE(notifications.active());

    const auto first = notifications.receive();
    ASSERT_TRUE(first.has_value());
    EXPECT_EQ(first->host_tid, child);
    EXPECT_EQ(first->stop.number, SYS_getppid);
    EXPECT_TRUE(notifications.answer(first->id, kAnswer));
    const auto second = notifications.receive();
    ASSERT_TRUE(second.has_value());
    EXPECT_TRUE(notifications.run_in_kernel(second->id));
    const auto conditional = notifications.receive();
    ASSERT_TRUE(conditional.has_value());
    EXPECT_EQ(conditional->stop.number, SYS_getpgid);
    EXPECT_TRUE(notifications.answer(conditional->id, kAnswer));
    // The marked getppid, getpid and getpgid(0) never come here: the child exits.
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 1 | 2 | 4 | 8 | 16 | 32);
    close(report[0]);
    close(report[1]);
}

} // namespace
} // namespace hermit::tracer
