#pragma once
// DebugBridge: the hand-off between the gdbserver thread and the tracer thread that runs a Session.
// ptrace only accepts requests from the thread that attached, so while the guest is stopped for the
// debugger the tracer thread waits here (inside a DebugHook call) and executes the server thread's
// requests one by one, until the server resumes the guest or aborts the run. Everything the server does
// to the guest goes through call(), so there is a single path to the stopped threads.
//
// While the guest runs, the server thread looks at gdb's connection every few milliseconds (only to
// notice Ctrl-C or a vanished gdb soon: nothing depends on when it looks); to stop the guest it writes to
// stop_requests(), an eventfd the Session polls (Session::set_debug_hook).

#include "formats/FileIo.h"

#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

namespace hermit::replay {

// Thrown on the tracer thread to end the Session early (the debugger killed the guest).
struct DebugRunAborted {};

class DebugBridge {
public:
    DebugBridge();
    DebugBridge(const DebugBridge&) = delete;
    DebugBridge& operator=(const DebugBridge&) = delete;
    ~DebugBridge(); // aborts and joins a run still going

    // Server thread: starts `run` (the Session) on the tracer thread and waits for its first stop.
    // Returns false when the run ended without stopping.
    bool start(std::function<int()> run);
    // Server thread, guest stopped: runs `work` on the tracer thread and waits for it.
    void call(const std::function<void()>& work);
    // Server thread, guest stopped: lets the guest go on and waits for the next stop; false when the run
    // ended instead (see exit_status()). When `interrupted` returns true, the guest is asked to stop.
    bool resume(const std::function<bool()>& interrupted);
    // Server thread: lets the guest go on without waiting (detach).
    void release();
    // Server thread: ends the run (the guest is killed) and waits for the tracer thread; a running guest is
    // stopped first.
    void abort();
    // The eventfd the Session polls for the debugger's stop requests.
    int stop_requests() const { return stop_requests_.get(); }
    // Server thread: waits for the run to end.
    void join();
    // After the run ended: the Session's exit status, nullopt when it was aborted. Rethrows its error.
    std::optional<int> exit_status() const;

    // Tracer thread, inside a DebugHook call: reports the stop and serves calls until resumed. Throws
    // DebugRunAborted when the server aborts.
    void serve_stop();

private:
    enum class State { Running, Stopped, Finished };

    bool wait_while_running(std::unique_lock<std::mutex>& lock);
    void request_stop();

    mutable std::mutex mutex_;
    std::condition_variable changed_;
    State state_ = State::Running;
    std::deque<std::function<void()>> work_;
    bool work_done_ = false;
    bool resume_ = false;
    bool abort_ = false;
    std::optional<int> exit_status_;
    std::exception_ptr error_;
    UniqueFd stop_requests_;
    std::thread tracer_;
};

} // namespace hermit::replay
