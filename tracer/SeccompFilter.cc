#include "SeccompFilter.h"

#include "SyscallInterceptor.h"
#include "formats/Error.h"

#include <linux/seccomp.h>
#include <seccomp.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <memory>

namespace hermit::tracer {

namespace {

struct ContextDeleter {
    void operator()(scmp_filter_ctx context) const { seccomp_release(context); }
};

} // namespace

SeccompFilter::SeccompFilter(const std::set<int>& trapped, const std::vector<ConditionalTrap>& conditional) {
    const bool trap_all = trapped.count(SyscallInterceptor::kAllSyscalls) != 0;
    std::unique_ptr<void, ContextDeleter> context(
        seccomp_init(trap_all ? SCMP_ACT_TRACE(0) : SCMP_ACT_ALLOW));
    if (!context) {
        throw Error(ErrorCode::SeccompUnavailable, "seccomp_init failed");
    }
    if (!trap_all) {
        for (int number : trapped) {
            int result = seccomp_rule_add(context.get(), SCMP_ACT_TRACE(0), number, 0);
            if (result != 0) {
                throw Error(ErrorCode::SeccompUnavailable,
                            "cannot trap syscall " + std::to_string(number) + ": " + std::strerror(-result));
            }
        }
        for (const ConditionalTrap& trap : conditional) {
            if (trapped.count(trap.number) != 0) {
                continue;
            }
            int result = seccomp_rule_add(context.get(), SCMP_ACT_TRACE(0), trap.number, 1,
                                          SCMP_CMP(trap.argument, SCMP_CMP_MASKED_EQ, trap.mask, trap.value));
            if (result != 0) {
                throw Error(ErrorCode::SeccompUnavailable, "cannot trap syscall " +
                                                               std::to_string(trap.number) +
                                                               " conditionally: " + std::strerror(-result));
            }
        }
    }
    // libseccomp writes the program to a file descriptor; a memfd keeps it in memory.
    int fd = memfd_create("hermit-seccomp", MFD_CLOEXEC);
    if (fd < 0) {
        throw Error(ErrorCode::SeccompUnavailable, std::string("memfd_create: ") + std::strerror(errno));
    }
    int result = seccomp_export_bpf(context.get(), fd);
    off_t size = lseek(fd, 0, SEEK_END);
    if (result != 0 || size <= 0 || size % static_cast<off_t>(sizeof(sock_filter)) != 0) {
        close(fd);
        throw Error(ErrorCode::SeccompUnavailable, "cannot export the BPF program");
    }
    program_.resize(static_cast<size_t>(size) / sizeof(sock_filter));
    ssize_t count = pread(fd, program_.data(), static_cast<size_t>(size), 0);
    close(fd);
    if (count != size) {
        throw Error(ErrorCode::SeccompUnavailable, "cannot read back the BPF program");
    }
}

bool SeccompFilter::install() const {
    sock_fprog program{static_cast<unsigned short>(program_.size()),
                       const_cast<sock_filter*>(program_.data())};
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0;
}

} // namespace hermit::tracer
