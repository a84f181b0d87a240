#pragma once
// Serving a guest session to gdb: `hermit replay` (a recording) and `hermit run --gdbserver-port` (a live
// deterministic run). The gdbserver listens on 127.0.0.1 only and serves one connection; without
// --serve-only hermit starts gdb itself, connected to it.

#include "DebugTarget.h"
#include "tracer/GuestRun.h"

#include <optional>
#include <string>

namespace hermit::replay {

struct DebugServeOptions {
    bool serve_only = false;               // wait for a debugger instead of starting gdb
    int port = 0;                          // 0: the kernel picks a free port
    std::string executable;                // the guest's program, for gdb's command line
    bool reversible = false;               // a replay, which can be started over: offer reverse execution
    uint64_t goto_event = 0;               // a replay: go forward to this recorded event before gdb connects
    std::optional<FollowedProcess> follow; // nullopt: debug the initial process
};

// Serves `session` to one gdb connection and returns the guest's exit status (0 when gdb killed it).
// Throws hermit::Error E060 (cannot listen), E061 (gdb missing) or the session's own errors.
int serve_debugger(DebugTarget::GuestSession session, const DebugServeOptions& options);

struct DebugReplayOptions {
    std::string recording = "latest"; // id, "latest" or a recording directory
    bool serve_only = false;
    int port = 0;
    uint64_t goto_event = 0; // 0: stop at the program's entry point
    // `-f PID`: debug this guest process instead of the initial one. Its first stop is the entry point of
    // its first exec if the recording has one, else the return of the fork that created it.
    std::optional<int32_t> follow_pid;
};

// `hermit replay ID` under gdb. Throws like replay_autopilot, plus E060/E061, and E063 for a `follow_pid`
// that never exists in the recording.
int debug_replay(const DebugReplayOptions& options);

// `hermit run --gdbserver-port=N -- cmd`: a live deterministic run under gdb, forwards only (there is no
// recording to replay, so reverse execution is not offered). Throws like GuestRun::run, plus E060/E061.
int debug_run(const tracer::GuestRunSpec& spec, bool serve_only, int port);

} // namespace hermit::replay
