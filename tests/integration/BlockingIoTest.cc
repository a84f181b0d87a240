// Data moving between guest processes (issue #34): a pipeline of four processes, a loopback HTTP server and
// its client in one guest, ports the guest leaves to the kernel, and a parent waiting for a busy child. Each
// runs real programs (sh, coreutils, python3) under the built hermit, under run, --verify and record/replay.

#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hermit::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kTimeoutSeconds = 300;

// Processes that keep every CPU busy while they live: a pipeline's hand-offs must not depend on who else
// runs.
class CpuHogs {
public:
    explicit CpuHogs(int count) {
        for (int index = 0; index < count; ++index) {
            const pid_t hog = fork();
            if (hog == 0) {
                execl("/bin/sh", "sh", "-c", "while :; do :; done", nullptr);
                _exit(127);
            }
            hogs_.push_back(hog);
        }
    }
    ~CpuHogs() {
        for (const pid_t hog : hogs_) {
            kill(hog, SIGKILL);
            waitpid(hog, nullptr, 0);
        }
    }
    CpuHogs(const CpuHogs&) = delete;
    CpuHogs& operator=(const CpuHogs&) = delete;

private:
    std::vector<pid_t> hogs_;
};

class BlockingIoTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-blocking-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
    }
    void TearDown() override { fs::remove_all(directory_); }

    ProcessResult hermit(const std::vector<std::string>& arguments) {
        std::vector<std::string> argv = {hermit_binary()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return run_process(argv, "", kTimeoutSeconds,
                           {"HERMIT_DATA_DIR=" + (directory_ / "recordings").string()});
    }

    static bool has_python() { return access("/usr/bin/python3", X_OK) == 0; }

    fs::path write_script(const std::string& name, const std::string& text) {
        const fs::path path = directory_ / name;
        std::ofstream(path) << text;
        return path;
    }

    // `command` under run twice (the same output), then recorded and replayed (the recorded output).
    void expect_same_under_run_and_replay(const std::vector<std::string>& command) {
        std::vector<std::string> run = {"run", "--"};
        run.insert(run.end(), command.begin(), command.end());
        const ProcessResult first = hermit(run);
        ASSERT_EQ(first.exit_status, 0) << first.stderr_text;
        const ProcessResult second = hermit(run);
        EXPECT_EQ(second.exit_status, 0) << second.stderr_text;
        EXPECT_EQ(second.stdout_text, first.stdout_text);

        std::vector<std::string> record = {"record", "start", "--"};
        record.insert(record.end(), command.begin(), command.end());
        const ProcessResult recorded = hermit(record);
        ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
        EXPECT_EQ(recorded.stdout_text, first.stdout_text);
        const ProcessResult replayed = hermit({"replay", "--autopilot"});
        EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
        EXPECT_EQ(replayed.stdout_text, recorded.stdout_text) << replayed.stderr_text;
    }

    fs::path directory_;
};

constexpr const char* kPipeline = "head -c 50000000 /dev/zero | tr '\\0' a | cat | sha256sum";

TEST_F(BlockingIoTest, FourStagePipelineIsExactAndDeterministicWhileEveryCpuIsBusy) {
    const ProcessResult native = run_process({"/bin/sh", "-c", kPipeline});
    ASSERT_EQ(native.exit_status, 0) << native.stderr_text;
    const CpuHogs hogs(2);
    const ProcessResult verified = hermit({"run", "--verify", "--", "/bin/sh", "-c", kPipeline});
    EXPECT_EQ(verified.exit_status, 0) << verified.stderr_text;
    EXPECT_EQ(verified.stdout_text, native.stdout_text);
    EXPECT_NE(verified.stderr_text.find("verify: identical"), std::string::npos) << verified.stderr_text;
}

TEST_F(BlockingIoTest, LoopbackHttpServerAndClientInOneGuestRunAndReplay) {
    if (!has_python()) {
        GTEST_SKIP() << "python3 is not installed (scripts/install-deps.sh installs it)";
    }
    fs::create_directory(directory_ / "www");
    std::ofstream(directory_ / "www" / "index.html") << "hello from the server\n";
    const fs::path script = write_script("http_both.py", R"py(
import http.server, os, socketserver, sys, threading, urllib.request
os.chdir(sys.argv[1])
class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *arguments):
        pass
server = socketserver.TCPServer(("127.0.0.1", 0), Quiet)
port = server.server_address[1]
threading.Thread(target=server.serve_forever, daemon=True).start()
for attempt in range(3):
    print(urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html").read().decode().strip())
print("port", port)
server.shutdown()
)py");
    expect_same_under_run_and_replay({"/usr/bin/python3", script.string(), (directory_ / "www").string()});
}

TEST_F(BlockingIoTest, PortZeroGivesTheSamePortsEveryRunAndInTheReplay) {
    if (!has_python()) {
        GTEST_SKIP() << "python3 is not installed (scripts/install-deps.sh installs it)";
    }
    const fs::path script = write_script("ports.py", R"py(
import socket
tcp = socket.socket()
tcp.bind(("127.0.0.1", 0))
tcp.listen()
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
udp.bind(("", 0))
v6 = socket.socket(socket.AF_INET6)
v6.bind(("::1", 0))
ports = [tcp.getsockname()[1], udp.getsockname()[1], v6.getsockname()[1]]
print("ports", *ports)
assert all(32768 <= port <= 60999 for port in ports), ports
)py");
    expect_same_under_run_and_replay({"/usr/bin/python3", script.string()});
}

// The spin warning is for a thread that starves others; a parent waiting in wait4 for its busy child is
// not starved of anything.
TEST_F(BlockingIoTest, ParentWaitingForABusyChildGetsNoSpinWarning) {
    if (!has_python()) {
        GTEST_SKIP() << "python3 is not installed (scripts/install-deps.sh installs it)";
    }
    const ProcessResult run = hermit(
        {"run", "--", "/bin/sh", "-c", "/usr/bin/python3 -c 'print(sum(range(2 * 10**8)))'; echo done"});
    EXPECT_EQ(run.exit_status, 0) << run.stderr_text;
    EXPECT_EQ(run.stdout_text, "19999999900000000\ndone\n");
    EXPECT_EQ(run.stderr_text.find("spins"), std::string::npos) << run.stderr_text;
}

} // namespace
} // namespace hermit::testing
