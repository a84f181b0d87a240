// The server against the real gdb, in batch mode, debugging InMemoryTarget.
#include "ServerHarness.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>

extern char** environ;

namespace hermit::gdbserver::testing {
namespace {

std::optional<std::string> find_gdb() {
    const char* path = std::getenv("PATH");
    std::string_view directories = path ? path : "/usr/bin:/bin";
    while (!directories.empty()) {
        size_t colon = directories.find(':');
        std::filesystem::path candidate = std::filesystem::path(directories.substr(0, colon)) / "gdb";
        if (access(candidate.c_str(), X_OK) == 0) {
            return candidate.string();
        }
        directories = colon == std::string_view::npos ? std::string_view() : directories.substr(colon + 1);
    }
    return std::nullopt;
}

// gdb in batch mode against 127.0.0.1:port running `commands`, its stdout and stderr captured together.
class GdbProcess {
public:
    GdbProcess(const std::string& gdb, uint16_t port, const std::vector<std::string>& commands) {
        std::vector<std::string> arguments = {gdb,
                                              "-batch",
                                              "-nx",
                                              "-ex",
                                              "set architecture i386:x86-64",
                                              "-ex",
                                              fmt::format("target remote 127.0.0.1:{}", port)};
        for (const std::string& command : commands) {
            arguments.push_back("-ex");
            arguments.push_back(command);
        }
        std::vector<char*> argv;
        for (std::string& argument : arguments) {
            argv.push_back(argument.data());
        }
        argv.push_back(nullptr);

        int pipe_fds[2];
        if (pipe(pipe_fds) != 0) {
            throw std::runtime_error("pipe failed");
        }
        posix_spawn_file_actions_t actions;
        posix_spawn_file_actions_init(&actions);
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDOUT_FILENO);
        posix_spawn_file_actions_adddup2(&actions, pipe_fds[1], STDERR_FILENO);
        posix_spawn_file_actions_addclose(&actions, pipe_fds[0]);
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
        int spawned = posix_spawn(&pid_, gdb.c_str(), &actions, nullptr, argv.data(), environ);
        posix_spawn_file_actions_destroy(&actions);
        close(pipe_fds[1]);
        output_fd_ = pipe_fds[0];
        if (spawned != 0) {
            close(output_fd_);
            throw std::runtime_error("cannot start gdb");
        }
    }
    GdbProcess(const GdbProcess&) = delete;
    GdbProcess& operator=(const GdbProcess&) = delete;
    ~GdbProcess() { finish(); }

    // What a user's Ctrl-C does: gdb then asks the server to stop the target.
    void interrupt() { kill(pid_, SIGINT); }

    // Waits for gdb to exit and returns everything it printed.
    std::string finish() {
        if (output_fd_ >= 0) {
            char buffer[4096];
            for (ssize_t n; (n = read(output_fd_, buffer, sizeof buffer)) > 0;) {
                output_.append(buffer, static_cast<size_t>(n));
            }
            close(output_fd_);
            output_fd_ = -1;
            int status = 0;
            waitpid(pid_, &status, 0);
        }
        return output_;
    }

private:
    pid_t pid_ = 0;
    int output_fd_ = -1;
    std::string output_;
};

std::string run_gdb(const std::string& gdb, uint16_t port, const std::vector<std::string>& commands) {
    return GdbProcess(gdb, port, commands).finish();
}

class RealGdb : public ::testing::Test {
protected:
    void SetUp() override {
        gdb_ = find_gdb();
        if (!gdb_) {
            GTEST_SKIP() << "gdb is not installed (apt-get install gdb)";
        }
    }
    std::optional<std::string> gdb_;
};

TEST_F(RealGdb, ReadsRegistersMemoryAndThreads) {
    InMemoryTarget target({});
    ServerHarness server(target);
    std::string output =
        run_gdb(*gdb_, server.port(),
                {"info registers rip", "x/4xb 0x1000", "info threads", "thread 2", "info registers rip",
                 "p/x $rax", "p/x $eflags", "set var $rax = 0x77", "p/x $rax", "reverse-continue"});
    SCOPED_TRACE(output);
    EXPECT_NE(output.find("rip            0x1010"), std::string::npos);
    EXPECT_NE(output.find("0x1000:\t0x48\t0x4f\t0x56\t0x5d"), std::string::npos);
    EXPECT_NE(output.find("Thread 2"), std::string::npos);
    EXPECT_NE(output.find("main"), std::string::npos);
    EXPECT_NE(output.find("[Switching to thread 2"), std::string::npos);
    EXPECT_NE(output.find("rip            0x1020"), std::string::npos);
    EXPECT_NE(output.find("= 0x112233445566778a"), std::string::npos);
    EXPECT_NE(output.find("= 0x77"), std::string::npos);
    EXPECT_NE(output.find("does not support this command"), std::string::npos);
    EXPECT_EQ(server.join(), GdbServer::Outcome::Killed);
    EXPECT_EQ(target.get_register(2, amd64::kRax), 0x77u);
}

TEST_F(RealGdb, BreakpointsStepsReverseExecutionAndMonitor) {
    InMemoryTarget::Capabilities capabilities;
    capabilities.breakpoints = true;
    capabilities.reverse = true;
    capabilities.monitor = true;
    capabilities.processes = true;
    InMemoryTarget target(capabilities);
    ServerHarness server(target);
    std::string output = run_gdb(*gdb_, server.port(),
                                 {"break *0x1015", "continue", "stepi", "info registers rip", "reverse-stepi",
                                  "info registers rip", "delete", "reverse-continue", "info registers rip",
                                  "monitor hello", "info threads"});
    SCOPED_TRACE(output);
    EXPECT_NE(output.find("Breakpoint 1 at 0x1015"), std::string::npos);
    EXPECT_NE(output.find("Breakpoint 1, 0x0000000000001015"), std::string::npos);
    EXPECT_NE(output.find("rip            0x1016"), std::string::npos);
    EXPECT_NE(output.find("No more reverse-execution history."), std::string::npos);
    EXPECT_NE(output.find("rip            0x1000"), std::string::npos);
    EXPECT_NE(output.find("you said: hello"), std::string::npos);
    EXPECT_NE(output.find("Thread 1.2"), std::string::npos);
}

TEST_F(RealGdb, ReadsTheExecutableThroughHostIo) {
    InMemoryTarget::Capabilities capabilities;
    capabilities.exec_file = true;
    capabilities.host_io = true;
    InMemoryTarget target(capabilities);
    std::string executable = std::filesystem::canonical("/proc/self/exe").string();
    target.set_exec_path(executable);
    ServerHarness server(target);
    std::string output = run_gdb(*gdb_, server.port(), {"info files"});
    SCOPED_TRACE(output);
    EXPECT_NE(output.find("Reading " + executable + " from remote target"), std::string::npos);
    EXPECT_NE(output.find("Symbols from \"target:" + executable), std::string::npos);
    EXPECT_NE(output.find(".text"), std::string::npos);
}

TEST_F(RealGdb, CtrlCInterruptsARunningTarget) {
    InMemoryTarget target({});
    ServerHarness server(target);
    GdbProcess gdb(*gdb_, server.port(), {"continue", "info registers rip"});
    ASSERT_TRUE(target.wait_until_running());
    gdb.interrupt();
    std::string output = gdb.finish();
    SCOPED_TRACE(output);
    EXPECT_NE(output.find("received signal SIGINT"), std::string::npos);
    EXPECT_NE(output.find("rip            0x1"), std::string::npos);
    EXPECT_EQ(server.join(), GdbServer::Outcome::Killed);
}

} // namespace
} // namespace hermit::gdbserver::testing
