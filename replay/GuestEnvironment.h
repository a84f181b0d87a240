#pragma once
// The environment and working directory hermit gives a guest: its own, exactly. Recordings store both so
// that a replay starts the guest with the same stack contents.

#include <string>
#include <vector>

namespace hermit::replay {

std::vector<std::string> current_environment();
// What a recorded guest gets, and its replay from the recording: hermit's environment with the syscall
// buffer's library last in LD_PRELOAD (tracer/SyscallBuffer.h), when hermit has it.
std::vector<std::string> recorded_environment();
std::string current_directory();

} // namespace hermit::replay
