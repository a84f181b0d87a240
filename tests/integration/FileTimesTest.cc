// File times (tracer/virt/FileTimes.h) as the tools that depend on them see them: make rebuilds what
// changed and relinks what depends on it, Python uses the bytecode cache written outside hermit, times a
// guest sets are shown as set, and a replay shows the times the recording saw after they changed.
#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hermit::testing {
namespace {

class FileTimesTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-file-times-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    void write_file(const std::string& name, const std::string& contents) {
        std::ofstream(directory_ / name) << contents;
    }
    // A shell command in the scratch directory, natively.
    ProcessResult shell(const std::string& command) {
        return run_process({"sh", "-c", "cd \"$1\" && " + command, "sh", directory_.string()});
    }
    ProcessResult hermit(const std::vector<std::string>& arguments, const std::string& command) {
        std::vector<std::string> argv = {hermit_binary()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        argv.insert(argv.end(), {"--", "sh", "-c", "cd \"$1\" && " + command, "sh", directory_.string()});
        return run_process(argv, "", 120, {"HERMIT_DATA_DIR=" + (directory_ / "recordings").string()});
    }

    std::filesystem::path directory_;
};

// Times are set explicitly (touch -d): a test cannot count on the clock moving between two writes.
TEST_F(FileTimesTest, MakeRebuildsWhatChangedAndRelinksWhatDependsOnIt) {
    write_file("Makefile", "app: main.o part.o\n\tcc -o app main.o part.o\n%.o: %.c\n\tcc -c $<\n");
    write_file("main.c", "int part(void);\nint main(void) { return part(); }\n");
    write_file("part.c", "int part(void) { return 1; }\n");
    ASSERT_EQ(shell("make -s && touch -d 2020-01-01 Makefile main.c part.c && "
                    "touch -d 2020-01-02 main.o part.o app && ./app; echo $?")
                  .stdout_text,
              "1\n");
    ASSERT_EQ(shell("sed -i 's/return 1/return 2/' part.c && touch -d 2020-01-03 part.c").exit_status, 0);

    const ProcessResult build = hermit({"run"}, "make && make");
    ASSERT_EQ(build.exit_status, 0) << build.stderr_text;
    EXPECT_EQ(build.stdout_text, "cc -c part.c\ncc -o app main.o part.o\nmake: 'app' is up to date.\n")
        << "within one run, what it made is newer than what it read";
    EXPECT_EQ(shell("./app; echo $?").stdout_text, "2\n") << "the program was relinked";

    const ProcessResult again = hermit({"run"}, "make");
    EXPECT_EQ(again.stdout_text, "make: 'app' is up to date.\n") << again.stderr_text;
}

TEST_F(FileTimesTest, PythonUsesTheBytecodeCacheWrittenOutside) {
    write_file("module_under_test.py", "VALUE = 42\n");
    ASSERT_EQ(
        shell("python3 -c 'import py_compile; py_compile.compile(\"module_under_test.py\")'").exit_status, 0);
    ASSERT_TRUE(std::filesystem::exists(directory_ / "__pycache__"));

    const ProcessResult run =
        hermit({"run"}, "python3 -v -c 'import module_under_test; print(module_under_test.VALUE)'");
    ASSERT_EQ(run.exit_status, 0) << run.stderr_text;
    EXPECT_EQ(run.stdout_text, "42\n");
    EXPECT_NE(run.stderr_text.find("module_under_test.cpython-"), std::string::npos) << run.stderr_text;
    EXPECT_NE(run.stderr_text.find(".pyc matches "), std::string::npos) << run.stderr_text;
    EXPECT_EQ(run.stderr_text.find("bytecode is stale for 'module_under_test'"), std::string::npos)
        << run.stderr_text;
}

// A file the run writes is newer than the inputs it looked at before, however late their times (here in
// 2030, while the guest's clock says 2000); a time the guest sets is shown as it set it.
TEST_F(FileTimesTest, WhatTheRunWritesIsNewerThanWhatItReadAndTimesItSetsAreKept) {
    write_file("input", "input\n");
    ASSERT_EQ(shell("touch -d @1900000000 input").exit_status, 0);
    const ProcessResult run =
        hermit({"run"}, "cat input >/dev/null && [ -f input ] && echo made > made && "
                        "[ made -nt input ] && echo newer && "
                        "touch -d @1234567890 made && stat -c '%n %Y' made && date +%Y");
    ASSERT_EQ(run.exit_status, 0) << run.stderr_text;
    EXPECT_EQ(run.stdout_text, "newer\nmade 1234567890\n2000\n");
}

// --verify's second run starts from what the first wrote: those changes count as the run's in both.
TEST_F(FileTimesTest, VerifyAgreesOnAGuestThatListsWhatItWrote) {
    const ProcessResult run = hermit({"run", "--verify"}, "echo x > out && ls -ld --full-time . out");
    EXPECT_EQ(run.exit_status, 0) << run.stderr_text;
    EXPECT_NE(run.stderr_text.find("verify: identical"), std::string::npos) << run.stderr_text;
}

TEST_F(FileTimesTest, AReplayShowsTheRecordedTimesAfterTheFileChanged) {
    write_file("input.txt", "input\n");
    ASSERT_EQ(shell("touch -d @1600000000 input.txt").exit_status, 0);
    const ProcessResult recorded = hermit({"record", "start"}, "stat -c '%Y' input.txt && date +%Y");
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "1600000000\n2000\n") << "an input's real time; the clock's own epoch";

    ASSERT_EQ(shell("touch -d @1700000000 input.txt").exit_status, 0);
    const ProcessResult replayed =
        run_process({"sh", "-c", "cd / && exec \"$0\" replay --autopilot", hermit_binary()}, "", 120,
                    {"HERMIT_DATA_DIR=" + (directory_ / "recordings").string()});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

} // namespace
} // namespace hermit::testing
