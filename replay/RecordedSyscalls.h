#pragma once
// Which system calls the recorder traps and what the replayer does with each of them. The recorder and
// the replayer must trap exactly the same set, so that a recording and its replay emit the same events;
// both read it from here.

#include <set>

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
};

ReplayTreatment replay_treatment(int number);

// Every syscall whose treatment is not NotRecorded.
std::set<int> recorded_syscalls();

// Reads that may wait for another process or the outside world; the recorder probes the descriptor first
// (see Recorder) so that a wait becomes an anchored scheduling point.
bool waits_for_input(int number);

} // namespace hermit::replay
