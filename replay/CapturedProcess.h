#pragma once
// CapturedProcess: one child program whose stdout and stderr are collected in memory, driven by the
// caller's poll loop so that many can run side by side (hermit search runs -j of them at once). The child's
// stdin is /dev/null. Invariant: once finished() is true the process has been reaped and both pipes are
// drained and closed.

#include <sys/types.h>

#include <string>
#include <vector>

namespace hermit::replay {

class CapturedProcess {
public:
    // Starts argv[0] (a path; PATH is not searched). Throws hermit::Error (E072) when it cannot start.
    explicit CapturedProcess(const std::vector<std::string>& argv);
    ~CapturedProcess(); // kills and reaps a child that is still running
    CapturedProcess(const CapturedProcess&) = delete;
    CapturedProcess& operator=(const CapturedProcess&) = delete;

    // Descriptors the caller should poll for POLLIN: the open output pipes and a pidfd that becomes
    // readable when the child exits.
    std::vector<int> poll_descriptors() const;
    // Reads whatever output is available and reaps the child if it exited. Never blocks.
    void service();
    // SIGKILL; the next service() reaps it.
    void kill();

    bool finished() const { return finished_; }
    // Exit code, or 128+N when signal N ended it (valid once finished).
    int exit_status() const { return exit_status_; }
    const std::string& stdout_text() const { return stdout_text_; }
    const std::string& stderr_text() const { return stderr_text_; }

private:
    void drain(int& fd, std::string& text);

    pid_t pid_ = -1;
    int pidfd_ = -1;
    int stdout_fd_ = -1;
    int stderr_fd_ = -1;
    bool finished_ = false;
    int exit_status_ = -1;
    std::string stdout_text_;
    std::string stderr_text_;
};

} // namespace hermit::replay
