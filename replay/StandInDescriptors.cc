#include "StandInDescriptors.h"

#include "formats/Error.h"

#include <fcntl.h>
#include <sys/syscall.h>

#include <array>
#include <string>

namespace hermit::replay {

namespace {

[[noreturn]] void cannot_stand_in(int fd) {
    throw Error(ErrorCode::TracerInternal,
                "cannot make a stand-in for descriptor " + std::to_string(fd) + " received by recvmsg");
}

} // namespace

void install_stand_ins(tracer::Task& task, const std::vector<int>& fds, bool close_on_exec) {
    for (const int fd : fds) {
        const uint64_t ends_address = task.scratch_below_stack(sizeof(std::array<int, 2>));
        const auto ends = task.inject_syscall(SYS_pipe2, {ends_address, O_CLOEXEC, 0, 0, 0, 0}) == 0
                              ? task.read_value<std::array<int, 2>>(ends_address)
                              : std::nullopt;
        if (!ends) {
            cannot_stand_in(fd);
        }
        // The lowest free numbers: the pipe may already hold the recorded one.
        const int kept = (*ends)[0] == fd ? (*ends)[0] : (*ends)[1] == fd ? (*ends)[1] : -1;
        int64_t placed = 0;
        if (kept < 0) {
            placed =
                task.inject_syscall(SYS_dup3, {static_cast<uint64_t>((*ends)[0]), static_cast<uint64_t>(fd),
                                               close_on_exec ? O_CLOEXEC : 0u, 0, 0, 0});
        } else if (!close_on_exec) {
            placed = task.inject_syscall(SYS_fcntl, {static_cast<uint64_t>(fd), F_SETFD, 0, 0, 0, 0});
        }
        for (const int end : *ends) {
            if (end != kept) {
                task.inject_syscall(SYS_close, {static_cast<uint64_t>(end), 0, 0, 0, 0, 0});
            }
        }
        if (placed < 0) {
            cannot_stand_in(fd);
        }
    }
}

} // namespace hermit::replay
