#pragma once
// Diversion: what gdb does to a replay that the recording never did (rr's DiversionSession): call a
// function (`print f(x)`, `x/s "abc"`, which mallocs the literal), change a variable or a register. It
// runs in the stopped thread itself, freely: its syscalls go to the kernel, outside the replay. When it is
// over, the process is put back exactly as it was, so the replay goes on as recorded.
//
// In place rather than in a forked copy: a fork would take the next pid of the guest's pid namespace and
// shift every pid the replay hands out after it. What is put back: the thread's registers (every register
// set) and the signal it stopped for, the contents of every writable mapping, the mappings themselves
// (ones the diversion made are unmapped) and the program break. What is not: effects outside the process
// (a file written, a descriptor opened or closed), as in rr. A process or thread the diversion makes (gdb's
// own `checkpoint` forks) is killed at once, but took a pid of the guest's namespace: then only a new run of
// the replay to the same position puts things back (spoiled()).

#include "ProcessImage.h"
#include "tracer/Task.h"

#include <signal.h>
#include <sys/user.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace hermit::tracer {
class Session;
}

namespace hermit::replay {

class Diversion {
public:
    // Takes the state of `task`'s process at its current stop (a breakpoint, a step or a signal; not its
    // exit). `session` runs the diverted thread (Session::run_alone_untraced).
    Diversion(tracer::Task& task, tracer::Session& session);

    tracer::Task& task() { return task_; }
    // Runs the thread (PTRACE_CONT or PTRACE_SINGLESTEP) to its next stop; returns the wait status.
    int run(int request);
    // A process or thread was made: undo() cannot give its pid back.
    bool spoiled() const { return spoiled_; }
    // Whether the thread's general registers are those it stopped with: gdb restores them when its call is
    // done, so the next resume is the replay's again.
    bool registers_restored();
    // Puts the process back as it was when the diversion began.
    void undo();

private:
    // Runs `number(args...)` in the thread through "syscall; int3" written at its pc for the call, so the
    // thread ends at a SIGTRAP stop as it began at one. Returns the raw result.
    int64_t call(int number, const std::array<uint64_t, 6>& args);
    // The program break, read before the image is taken (the call goes through the thread's registers).
    uint64_t program_break();

    tracer::Task& task_;
    tracer::Session& session_;
    uint64_t program_break_ = 0;
    ProcessImage image_;
    std::optional<siginfo_t> signal_; // the signal of a signal-delivery stop
    bool spoiled_ = false;
};

} // namespace hermit::replay
