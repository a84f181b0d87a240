#pragma once
// The tracer's side of the syscall buffer that hermit's preload library (tracer/preload/) keeps in each
// guest thread it records or replays. A build makes thousands of access, unlink, link, mkdir and rename
// calls, opens of missing files (a compiler's include path) and of new ones (git's objects), each a ~45 us
// round trip through the tracer when trapped; the library answers them in the guest instead: recording, it
// makes them from its call site, which the seccomp filters let through, and appends each result to the
// buffer; replaying, it returns the results that the replayer placed there ahead of the thread's next calls.
//
// The Session takes the calls a thread completed there at the thread's next stop, before anything else of
// that stop, and emits each as a SyscallEvent marked `buffered` that carries its paths. So a recording
// holds the thread's calls in its order whichever way each was made, and a replay emits the same events
// at the same places: a call the library could not answer is trapped and answered from the same event.

#include "SyscallInterceptor.h"
#include "formats/Event.h"
#include "tracer/preload/syscall_buffer.h"

#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace hermit::tracer {

class Task;

namespace syscall_buffer {

constexpr int kRegisterSyscall = HERMIT_BUFFER_REGISTER_SYSCALL;
enum class Mode : uint32_t { Record = HERMIT_BUFFER_RECORD, Replay = HERMIT_BUFFER_REPLAY };

// What the library makes from its call site while replaying, which the replay lets through, and while
// recording too. About stable system files, without an entry (the kernel's answer, as the tracer would
// leave the call to it): access, faccessat, faccessat2 (realpath's directory checks too), readlinkat
// (realpath's, readlink's), newfstatat and openat (their opens for reading). And openat of new files
// (hermit_buffer_creates_new_file): a recording's, in whose place a replay opens its private files.
const std::set<int>& replay_call_site_syscalls();
// What the library makes from its call site while recording, which the recording lets through: those,
// and the calls it answers.
const std::set<int>& call_site_syscalls();
// The arguments of a buffered syscall that are paths, in order (SyscallEvent::paths holds them so).
std::vector<size_t> path_arguments(int number);
// The library, beside the hermit executable or where the build made it; empty when it is not there
// (guests then trap every call, as without it).
std::string preload_library();

// Answers the library's registration syscall: the buffer at args[0] (0: none any more) is the thread's
// from now on, in `mode`. Returns the result for the guest.
int64_t register_buffer(Task& task, const SyscallStop& stop, Mode mode);
// The calls the thread completed in its buffer since it was last emptied, as buffered SyscallEvents, in
// the order it made them; empties the buffer.
std::vector<SyscallEvent> take(Task& task);
// Replay: places `calls` (buffered SyscallEvents of a recording, in order) in the thread's buffer, which
// take() emptied, for its next calls. False when they do not fit or cannot be written.
bool place(Task& task, const std::vector<const SyscallEvent*>& calls);

} // namespace syscall_buffer

} // namespace hermit::tracer
