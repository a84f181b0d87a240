// Real programs under the built hermit: a `make -j2` build, sqlite3 and python3 scripts, an `sh -c`
// pipeline and a multithreaded guest. `hermit run` must give the same stdout, stderr and exit status every
// time, `run --verify` must agree with itself, and `record start` then `replay --autopilot` must reproduce
// what the recorded run printed and returned, also with an inherited descriptor and an outside signal.

#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace hermit::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kTimeoutSeconds = 120;
constexpr int kRepetitions = 20;

std::optional<std::string> program_in_path(const std::string& name) {
    const char* path = std::getenv("PATH");
    std::stringstream directories(path != nullptr ? path : "/usr/bin:/bin");
    std::string directory;
    while (std::getline(directories, directory, ':')) {
        const fs::path candidate = fs::path(directory) / name;
        if (access(candidate.c_str(), X_OK) == 0) {
            return candidate.string();
        }
    }
    return std::nullopt;
}

// The distribution's interpreter rather than a version-manager shim, so record and replay run one binary.
std::optional<std::string> python_interpreter() {
    if (access("/usr/bin/python3", X_OK) == 0) {
        return "/usr/bin/python3";
    }
    return program_in_path("python3");
}

// hermit prefixes each of its own stderr lines with "hermit: "; what is left is the guest's stderr.
std::string guest_stderr(const std::string& text) {
    std::stringstream lines(text);
    std::string line;
    std::string kept;
    while (std::getline(lines, line)) {
        if (line.rfind("hermit: ", 0) != 0) {
            kept += line + "\n";
        }
    }
    return kept;
}

// `sh -c` script: DIRECTORY INPUT COMMAND... runs COMMAND in DIRECTORY with stdin from INPUT.
constexpr const char* kRunInDirectory = R"sh(
directory=$1 input=$2
shift 2
cd "$directory" || exit 126
exec "$@" <"$input"
)sh";

// Where a guest command runs: its working directory and the file on its stdin.
struct Invocation {
    Invocation(fs::path working_directory, fs::path input = "/dev/null")
        : directory(std::move(working_directory)), stdin_file(std::move(input)) {}
    fs::path directory;
    fs::path stdin_file;
};

class WorkloadTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-workloads-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
        data_dir_ = directory_ / "recordings";
        // Guests with the same seed make the same temporary names (cc's /tmp/ccXXXXXX.s): two tests that
        // compile at the same time must not share a temporary directory, or one's O_EXCL create fails and
        // its run takes another path.
        temporary_dir_ = directory_ / "tmp";
        fs::create_directory(temporary_dir_);
    }
    void TearDown() override { fs::remove_all(directory_); }

    // Runs `hermit ARGUMENTS...` as `cd DIRECTORY && hermit ... <STDIN_FILE` through /bin/sh.
    ProcessResult hermit(const Invocation& invocation, const std::vector<std::string>& arguments) {
        std::vector<std::string> argv = {"/bin/sh",
                                         "-c",
                                         kRunInDirectory,
                                         "sh",
                                         invocation.directory.string(),
                                         invocation.stdin_file.string(),
                                         hermit_binary()};
        argv.insert(argv.end(), arguments.begin(), arguments.end());
        return run_process(argv, "", kTimeoutSeconds,
                           {"HERMIT_DATA_DIR=" + data_dir_.string(), "TMPDIR=" + temporary_dir_.string()});
    }

    ProcessResult run(const Invocation& invocation, const std::vector<std::string>& command,
                      const std::vector<std::string>& options = {}) {
        std::vector<std::string> arguments = {"run"};
        arguments.insert(arguments.end(), options.begin(), options.end());
        arguments.push_back("--");
        arguments.insert(arguments.end(), command.begin(), command.end());
        return hermit(invocation, arguments);
    }

    ProcessResult record(const Invocation& invocation, const std::vector<std::string>& command) {
        std::vector<std::string> arguments = {"record", "start", "--"};
        arguments.insert(arguments.end(), command.begin(), command.end());
        return hermit(invocation, arguments);
    }

    // Runs COMMAND kRepetitions times under `hermit run` and expects every run to match the first.
    void expect_identical_runs(const Invocation& invocation, const std::vector<std::string>& command,
                               const std::string& expected_output) {
        const ProcessResult first = run(invocation, command);
        ASSERT_EQ(first.exit_status, 0) << first.stderr_text;
        ASSERT_NE(first.stdout_text.find(expected_output), std::string::npos) << first.stdout_text;
        for (int repetition = 1; repetition < kRepetitions; ++repetition) {
            const ProcessResult again = run(invocation, command);
            ASSERT_EQ(again.exit_status, first.exit_status) << "run " << repetition + 1 << "\n"
                                                            << again.stderr_text;
            ASSERT_EQ(again.stdout_text, first.stdout_text) << "run " << repetition + 1;
            ASSERT_EQ(again.stderr_text, first.stderr_text) << "run " << repetition + 1;
        }
    }

    void expect_verify_agrees(const Invocation& invocation, const std::vector<std::string>& command) {
        const ProcessResult verified = run(invocation, command, {"--verify"});
        EXPECT_EQ(verified.exit_status, 0) << verified.stderr_text;
        EXPECT_NE(verified.stderr_text.find("verify: identical"), std::string::npos) << verified.stderr_text;
    }

    // Replays the latest recording with `replay_invocation` and expects the recorded run's stdout, guest
    // stderr and exit status.
    void expect_replay_reproduces(const ProcessResult& recorded, const Invocation& replay_invocation) {
        const ProcessResult replayed = hermit(replay_invocation, {"replay", "--autopilot"});
        EXPECT_EQ(replayed.exit_status, recorded.exit_status) << replayed.stderr_text;
        EXPECT_EQ(replayed.stdout_text, recorded.stdout_text) << replayed.stderr_text;
        EXPECT_EQ(guest_stderr(replayed.stderr_text), guest_stderr(recorded.stderr_text));
    }

    void expect_record_then_replay(const Invocation& invocation, const std::vector<std::string>& command,
                                   const std::string& expected_output) {
        const ProcessResult recorded = record(invocation, command);
        ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
        ASSERT_NE(recorded.stdout_text.find(expected_output), std::string::npos) << recorded.stdout_text;
        ASSERT_NE(recorded.stderr_text.find("hermit: recorded "), std::string::npos) << recorded.stderr_text;
        expect_replay_reproduces(recorded, invocation);
    }

    // Six C files built in parallel and linked; the default goal runs the program and then removes what
    // it built, so every run (the two of --verify and a replay included) starts from the same directory.
    Invocation make_project() {
        const fs::path project = directory_ / "project";
        fs::create_directories(project);
        std::ofstream main_file(project / "main.c");
        main_file << "#include <stdio.h>\n";
        int expected_total = 0;
        for (int part = 1; part <= 5; ++part) {
            std::ofstream(project / ("part" + std::to_string(part) + ".c"))
                << "int part" << part << "(int x) { return x * " << part << " + " << part << "; }\n";
            main_file << "int part" << part << "(int);\n";
            expected_total += part * part + part;
        }
        main_file << "int main(void) {\n  printf(\"total %d\\n\", part1(1) + part2(2) + part3(3) + "
                     "part4(4) + part5(5));\n  return 0;\n}\n";
        main_file.close();
        std::ofstream(project / "Makefile") << "OBJECTS = main.o part1.o part2.o part3.o part4.o part5.o\n"
                                               "all: program\n\t./program\n\trm -f program $(OBJECTS)\n"
                                               "program: $(OBJECTS)\n\t$(CC) -o $@ $(OBJECTS)\n"
                                               "%.o: %.c\n\t$(CC) -O0 -c -o $@ $<\n";
        expected_make_output_ = "total " + std::to_string(expected_total) + "\n";
        return {project};
    }

    // Nondeterministic SQL (random(), randomblob(), datetime('now')) on an existing database file. With
    // `commit` false the inserts are rolled back, so every run starts from the same file; with it true the
    // recorded run changes the file that a later replay in the same directory finds.
    Invocation sqlite_script(bool commit) {
        const ProcessResult created =
            run_process({*program_in_path("sqlite3"), (directory_ / "db.sqlite").string(),
                         "CREATE TABLE samples(id INTEGER PRIMARY KEY, value INTEGER, noted TEXT);"},
                        "", kTimeoutSeconds);
        EXPECT_EQ(created.exit_status, 0) << created.stderr_text;
        std::ofstream(directory_ / "script.sql")
            << "BEGIN;\n"
               "INSERT INTO samples(value, noted) VALUES (random(), datetime('now'));\n"
               "INSERT INTO samples(value, noted) VALUES (random(), datetime('now'));\n"
               "INSERT INTO samples(value, noted) SELECT abs(random()) % 1000, datetime('now') FROM "
               "samples;\n"
               "SELECT 'rows', count(*), sum(value), max(noted) FROM samples;\n"
               "SELECT 'blob', hex(randomblob(8));\n"
            << (commit ? "COMMIT;\n" : "ROLLBACK;\n");
        return {directory_, directory_ / "script.sql"};
    }

    std::vector<std::string> sqlite_command() const { return {*program_in_path("sqlite3"), "db.sqlite"}; }

    fs::path directory_;
    fs::path data_dir_;
    fs::path temporary_dir_;
    std::string expected_make_output_;
};

#define REQUIRE_PROGRAM(name)                                                                                \
    if (!program_in_path(name)) {                                                                            \
        GTEST_SKIP() << name << " is not installed (scripts/install-deps.sh installs it)";                   \
    }

const std::vector<std::string> kPipeline = {"/bin/sh", "-c", "seq 1 1000 | sort -rn | head -2"};

TEST_F(WorkloadTest, MakeProjectIsIdenticalAcross20Runs) {
    REQUIRE_PROGRAM("make");
    REQUIRE_PROGRAM("cc");
    const Invocation project = make_project();
    expect_identical_runs(project, {*program_in_path("make"), "-j2"}, expected_make_output_);
}

TEST_F(WorkloadTest, SqliteScriptIsIdenticalAcross20Runs) {
    REQUIRE_PROGRAM("sqlite3");
    expect_identical_runs(sqlite_script(false), sqlite_command(), "rows|4|");
}

TEST_F(WorkloadTest, ShellPipelineIsIdenticalAcross20Runs) {
    expect_identical_runs({directory_}, kPipeline, "1000\n999\n");
}

TEST_F(WorkloadTest, VerifyAgreesOnMakeProject) {
    REQUIRE_PROGRAM("make");
    REQUIRE_PROGRAM("cc");
    expect_verify_agrees(make_project(), {*program_in_path("make"), "-j2"});
}

TEST_F(WorkloadTest, VerifyAgreesOnSqliteScript) {
    REQUIRE_PROGRAM("sqlite3");
    expect_verify_agrees(sqlite_script(false), sqlite_command());
}

TEST_F(WorkloadTest, VerifyAgreesOnShellPipeline) {
    expect_verify_agrees({directory_}, kPipeline);
}

TEST_F(WorkloadTest, ReplayReproducesSqliteScript) {
    REQUIRE_PROGRAM("sqlite3");
    expect_record_then_replay(sqlite_script(true), sqlite_command(), "rows|4|");
}

TEST_F(WorkloadTest, ReplayReproducesPythonScript) {
    const auto python = python_interpreter();
    if (!python) {
        GTEST_SKIP() << "python3 is not installed (scripts/install-deps.sh installs it)";
    }
    std::ofstream(directory_ / "input.txt") << "contents of the input file\n";
    std::ofstream(directory_ / "script.py") << "import os, random, time\n"
                                               "with open('input.txt') as source:\n"
                                               "    print('file', source.read().strip())\n"
                                               "print('time', time.time(), time.monotonic())\n"
                                               "print('random', random.random(), random.randint(0, 10**9))\n"
                                               "print('urandom', os.urandom(8).hex())\n"
                                               "print('pid', os.getpid(), id(object()))\n";
    expect_record_then_replay({directory_}, {*python, "script.py"}, "file contents of the input file\n");
}

TEST_F(WorkloadTest, ReplayReproducesMakeProject) {
    REQUIRE_PROGRAM("make");
    REQUIRE_PROGRAM("cc");
    const Invocation project = make_project();
    expect_record_then_replay(project, {*program_in_path("make"), "-j2"}, expected_make_output_);
}

TEST_F(WorkloadTest, ReplayReproducesShellPipeline) {
    expect_record_then_replay({directory_}, kPipeline, "1000\n999\n");
}

TEST_F(WorkloadTest, ReplayReproducesMultithreadedGuest) {
    expect_record_then_replay({directory_}, {guest_path("replay_threads")}, "order ");
}

} // namespace
} // namespace hermit::testing
