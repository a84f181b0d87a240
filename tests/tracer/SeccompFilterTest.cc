// The filter is installed in a real child without a tracer: a trapped syscall then fails with ENOSYS
// (SECCOMP_RET_TRACE with nobody attached), an allowed one runs normally.
#include "tracer/SeccompFilter.h"
#include "tracer/SyscallInterceptor.h"

#include <gtest/gtest.h>

#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>

namespace hermit::tracer {
namespace {

// Exit code of a child that installs `filter` and reports what getppid and getpid did.
int child_outcome(const SeccompFilter& filter) {
    pid_t child = fork();
    if (child == 0) {
        prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        if (!filter.install()) {
            _exit(99);
        }
        long parent = syscall(SYS_getppid);
        int parent_errno = errno;
        long self = syscall(SYS_getpid);
        int code = 0;
        if (parent == -1 && parent_errno == ENOSYS) {
            code |= 1; // getppid trapped
        }
        if (self > 0) {
            code |= 2; // getpid allowed
        }
        _exit(code);
    }
    int status = 0;
    waitpid(child, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST(SeccompFilter, TrapsOnlyTheListedSyscalls) {
    SeccompFilter filter({SYS_getppid});
    EXPECT_FALSE(filter.program().empty());
    EXPECT_EQ(child_outcome(filter), 1 | 2);
}

TEST(SeccompFilter, EmptySetAllowsEverything) {
    SeccompFilter filter({});
    EXPECT_EQ(child_outcome(filter), 2);
}

TEST(SeccompFilter, ProgramGrowsWithTheTrappedSet) {
    SeccompFilter small({SYS_getppid});
    SeccompFilter large({SYS_getppid, SYS_futex, SYS_wait4, SYS_kill, SYS_poll});
    EXPECT_GT(large.program().size(), small.program().size());
}

} // namespace
} // namespace hermit::tracer
