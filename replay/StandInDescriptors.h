#pragma once
// StandInDescriptors: a replay emulates recvmsg from the log, so the descriptors it received when recorded
// (SCM_RIGHTS) are not passed. A pipe stands in for each, at the recorded number: the guest's later
// descriptors get their recorded numbers, its reads and writes of the stand-in are emulated from the log
// like those of any stream, and closing it succeeds. What only the real object could answer (mmap of a
// received file) still diverges.

#include "tracer/Task.h"

#include <vector>

namespace hermit::replay {

// Makes each of `fds` a descriptor of the stopped guest thread's process, close-on-exec when the recvmsg
// asked for it (MSG_CMSG_CLOEXEC), by syscalls injected into the thread.
void install_stand_ins(tracer::Task& task, const std::vector<int>& fds, bool close_on_exec);

} // namespace hermit::replay
