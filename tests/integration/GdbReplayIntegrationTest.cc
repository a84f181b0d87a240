// `hermit replay --serve-only` debugged by the real gdb in batch mode: breakpoints, backtraces, threads,
// memory, hardware watchpoints and monitor commands on a replayed recording of tests/guests/debug_threads.
#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <thread>

namespace {

using hermit::testing::guest_path;
using hermit::testing::hermit_binary;
using hermit::testing::run_process;

bool gdb_available() {
    return run_process({"sh", "-c", "command -v gdb"}).exit_status == 0;
}

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class GdbReplayTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!gdb_available()) {
            GTEST_SKIP() << "gdb is not installed";
        }
        data_dir_ = std::filesystem::temp_directory_path() /
                    ("hermit-gdb-test-" + std::to_string(getpid()) + "-" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(data_dir_);
        std::filesystem::create_directories(data_dir_);
        auto recorded = run_process({hermit_binary(), "record", "start", "--", guest_path("debug_threads")},
                                    "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
        ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    }

    void TearDown() override { std::filesystem::remove_all(data_dir_); }

    // Serves the latest recording with --serve-only and runs gdb with `commands` against it; returns
    // gdb's output.
    std::string debug(const std::vector<std::string>& commands) {
        std::filesystem::path server_stderr = data_dir_ / "server.err";
        pid_t server = fork();
        if (server == 0) {
            setenv("HERMIT_DATA_DIR", data_dir_.c_str(), 1);
            int fd = open(server_stderr.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            dup2(fd, 2);
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            execl(hermit_binary().c_str(), "hermit", "replay", "latest", "--serve-only", "--gdbserver-port=0",
                  static_cast<char*>(nullptr));
            _exit(127);
        }
        std::smatch match;
        std::regex listening("target remote :([0-9]+)");
        std::string text;
        // The server prints its port once it listens; wait for that line (bounded, not a timing assumption).
        for (int attempt = 0; attempt < 600; ++attempt) {
            text = read_text(server_stderr);
            if (std::regex_search(text, match, listening)) {
                break;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        EXPECT_TRUE(std::regex_search(text, match, listening)) << text;
        std::vector<std::string> argv{"gdb", "-batch",        "-nx", guest_path("debug_threads"),
                                      "-ex", "set sysroot /", "-ex", "target remote :" + match[1].str()};
        for (const auto& command : commands) {
            argv.insert(argv.end(), {"-ex", command});
        }
        auto gdb = run_process(argv, "", 60);
        int status = 0;
        waitpid(server, &status, 0);
        EXPECT_TRUE(WIFEXITED(status)) << read_text(server_stderr);
        return gdb.stdout_text;
    }

    std::filesystem::path data_dir_;
};

TEST_F(GdbReplayTest, BreakpointBacktraceThreadsAndMemory) {
    std::vector<std::string> script{"break worker_step",    "continue",     "bt",  "info threads",
                                    "print shared_counter", "monitor when", "kill"};
    std::string output = debug(script);
    EXPECT_NE(output.find("Breakpoint 1, worker_step (step=step@entry=0)"), std::string::npos) << output;
    EXPECT_TRUE(std::regex_search(output, std::regex("#1 .* in main \\(\\) at .*debug_threads.c"))) << output;
    EXPECT_TRUE(std::regex_search(output, std::regex("\\* 1 +Thread 1\\.1 +worker_step"))) << output;
    EXPECT_NE(output.find("$1 = 0"), std::string::npos) << output;
    EXPECT_NE(output.find("Current event: "), std::string::npos) << output;
    // The same debugging session over the same recording sees exactly the same things.
    EXPECT_EQ(debug(script), output);
}

TEST_F(GdbReplayTest, HardwareWatchpointStopsAfterTheWrite) {
    std::string output = debug({"break worker_step", "continue", "watch shared_counter", "continue",
                                "print shared_counter", "kill"});
    EXPECT_NE(output.find("Hardware watchpoint 2: shared_counter"), std::string::npos) << output;
    EXPECT_NE(output.find("Old value = 0\nNew value = 1"), std::string::npos) << output;
    EXPECT_NE(output.find("$1 = 1"), std::string::npos) << output;
}

} // namespace
