// hermit's strace printer on a real traced guest (tests/guests/syscalls_strace.c).
#include "tracer/StraceInterceptor.h"
#include "tracer/Session.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>

namespace hermit::tracer {
namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

class StraceInterceptorTest : public ::testing::Test {
protected:
    void SetUp() override {
        char directory[] = "/tmp/hermit-strace-test-XXXXXX";
        ASSERT_NE(mkdtemp(directory), nullptr);
        directory_ = directory;
        trace_path_ = directory_ + "/trace.txt";
    }
    void TearDown() override {
        std::remove(trace_path_.c_str());
        rmdir(directory_.c_str());
    }

    // Runs the guest under a Session that only prints syscalls, as `hermit run --strace-only` does.
    int run_guest() {
        SessionOptions options;
        options.argv = {std::string(HERMIT_GUEST_DIR) + "/syscalls_strace"};
        options.env = {"PATH=/usr/bin:/bin"};
        options.namespaces = false;
        options.deterministic_scheduling = false;
        StraceInterceptor strace(trace_path_);
        Session session(options);
        session.add_interceptor(&strace);
        session.add_event_sink(&strace);
        return session.run();
    }

    std::string directory_;
    std::string trace_path_;
};

TEST_F(StraceInterceptorTest, PrintsDecodedCallsOfARealGuest) {
    EXPECT_EQ(run_guest(), 3);
    std::string trace = read_file(trace_path_);
    EXPECT_NE(
        trace.find("openat(AT_FDCWD, \"/nonexistent-hermit-strace\", O_RDONLY) = -1 ENOENT (No such file or "
                   "directory)\n"),
        std::string::npos)
        << trace;
    EXPECT_TRUE(std::regex_search(
        trace, std::regex(R"(openat\(AT_FDCWD, "/dev/null", O_WRONLY\|O_CLOEXEC\) = (\d+)\n)")))
        << trace;
    EXPECT_TRUE(std::regex_search(trace, std::regex(R"(\nwrite\(\d+, "hello\\n", 6\) = 6\n)"))) << trace;
    EXPECT_TRUE(std::regex_search(trace, std::regex(R"(\npipe2\(\[\d+, \d+\], O_CLOEXEC\) = 0\n)"))) << trace;
    // The read's buffer is an output: it shows what the kernel wrote, NUL escaped.
    EXPECT_TRUE(std::regex_search(trace, std::regex(R"(\nread\(\d+, "ab\\0c", 8\) = 4\n)"))) << trace;
    // After the second thread appears, lines name their thread, like strace -f.
    EXPECT_TRUE(
        std::regex_search(trace, std::regex(R"(\[pid \d+\] write\(\d+, "from the thread\\n", 16\) = 16\n)")))
        << trace;
    EXPECT_TRUE(std::regex_search(trace, std::regex(R"(\[pid \d+\] exit_group\(3\) = \?\n)"))) << trace;
    EXPECT_TRUE(std::regex_search(trace, std::regex(R"(\[pid \d+\] \+\+\+ exited with 3 \+\+\+\n)")))
        << trace;
    // Every call completes, except that the Session resumes a parent after PTRACE_EVENT_CLONE without
    // an exit stop, so the clone3 line may end unfinished.
    std::regex unfinished_other_than_clone(
        R"((^|\n)(\[pid \d+\] )?(?!clone)[a-z_0-9]+\(.*<unfinished \.\.\.>)");
    EXPECT_FALSE(std::regex_search(trace, unfinished_other_than_clone)) << trace;
}

TEST_F(StraceInterceptorTest, UnwritableOutputFileIsAnError) {
    try {
        StraceInterceptor strace(directory_ + "/missing-directory/trace.txt");
        FAIL() << "expected an error";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::StraceOutputUnavailable);
        EXPECT_NE(std::string(error.what()).find("No such file or directory"), std::string::npos)
            << error.what();
    }
}

} // namespace
} // namespace hermit::tracer
