#pragma once
// Which system calls the recorder traps and what the replayer does with each of them. The recorder and
// the replayer must trap exactly the same set, so that a recording and its replay emit the same events;
// both read it from here.

#include <set>
#include <string>

namespace hermit::replay {

enum class ReplayTreatment {
    // Not trapped by record/replay (the Session and the Virtualizer may still trap it).
    NotRecorded,
    // Reads the outside world (file data and metadata, pipes, sockets, terminals): the recorder captures
    // the result and the memory it wrote, the replayer returns them without running the syscall.
    EmulateFromLog,
    // Opens a file: runs for real on replay (later mmaps need the fd), redirected to the recording's copy
    // when the original file is missing or changed.
    OpenFile,
    // Writes: run for real on descriptors the guest inherited (hermit's stdout/stderr, files) so replay
    // reproduces the output; emulated on pipes and sockets, whose readers are emulated.
    Write,
    // Changes names or metadata in the file system by path (unlink, rename, mkdir, chmod, truncate,
    // utimensat, ...): emulated from the log, so a replay never changes the user's files; the replayer
    // keeps its private copies of written files in step.
    ChangePath,
    // Starts a program: the recorder copies a program that is not a system file, the replayer runs the
    // copy (or the one the guest built during the replay) when the original is missing or changed.
    Execute,
};

ReplayTreatment replay_treatment(int number);

// Every syscall whose treatment is not NotRecorded.
std::set<int> recorded_syscalls();

// Files under /usr, /lib, /etc, /proc, /sys, /dev belong to the system, not to the program's input and
// output: the recorder does not copy them and replay opens them as they are.
bool is_system_file(const std::string& absolute_path);

} // namespace hermit::replay
