#pragma once
// Helpers for integration tests that drive the real hermit binary (or any program) as a child process:
// run it with a given stdin, capture stdout and stderr, and get its shell-style exit status.

#include <string>
#include <vector>

namespace hermit::testing {

struct ProcessResult {
    // Exit code, or 128+N when signal N killed the process; -1 when it was killed for exceeding the timeout.
    int exit_status = -1;
    std::string stdout_text;
    std::string stderr_text;
};

// Runs argv (argv[0] is looked up in PATH) with stdin_text on its stdin and waits at most timeout_seconds.
// extra_env entries ("NAME=value") are added to (or override) the test's own environment.
ProcessResult run_process(const std::vector<std::string>& argv, const std::string& stdin_text = "",
                          int timeout_seconds = 60, const std::vector<std::string>& extra_env = {});

// The "guest done: N ptrace stops" count of a `hermit --log=debug` run or recording; -1 without it.
long ptrace_stops(const ProcessResult& run);
// The "M notifications" count that follows it: syscalls answered without a ptrace stop.
long notifications(const ProcessResult& run);

// Absolute path of the hermit binary under test.
std::string hermit_binary();
// Absolute path of the test guest program built from tests/guests/<name>.c.
std::string guest_path(const std::string& name);

} // namespace hermit::testing
