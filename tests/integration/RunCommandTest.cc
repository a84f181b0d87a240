// `hermit run` end to end: the real binary, real guests, real signals.
#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <dirent.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace hermit::testing {
namespace {

ProcessResult hermit_run(const std::vector<std::string>& guest, const std::vector<std::string>& options = {},
                         const std::string& stdin_text = "") {
    std::vector<std::string> argv = {hermit_binary(), "run"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), guest.begin(), guest.end());
    return run_process(argv, stdin_text);
}

ProcessResult native(const std::vector<std::string>& guest) {
    return run_process(guest);
}

TEST(HermitRun, ExitCodePassesThrough) {
    ProcessResult result = hermit_run({"sh", "-c", "exit 7"});
    EXPECT_EQ(result.exit_status, 7) << result.stderr_text;
}

TEST(HermitRun, DeathBySignalIs128PlusN) {
    ProcessResult result = hermit_run({"sh", "-c", "kill -SEGV $$"});
    EXPECT_EQ(result.exit_status, 139) << result.stderr_text;
}

TEST(HermitRun, PipelineOfProcesses) {
    ProcessResult result = hermit_run({"sh", "-c", "seq 1 100000 | sort -n | tail -1"});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "100000\n");
}

TEST(HermitRun, StdinReachesTheGuest) {
    ProcessResult result = hermit_run({"sh", "-c", "tr a-z A-Z"}, {}, "hello\n");
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "HELLO\n");
}

TEST(HermitRun, MultithreadedGuestMatchesNativeOutput) {
    ProcessResult expected = native({guest_path("tracer_threads")});
    ProcessResult result = hermit_run({guest_path("tracer_threads")});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, expected.stdout_text);
    EXPECT_EQ(result.stdout_text, "total=10000 finished=4\n");
}

// Programs probe for syscalls: numbers hermit does not know fail with ENOSYS as natively, never a SIGSYS.
TEST(HermitRun, UnknownSyscallNumbersFailWithEnosys) {
    ProcessResult expected = native({guest_path("tracer_unknown_syscalls")});
    ProcessResult result = hermit_run({guest_path("tracer_unknown_syscalls")});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, expected.stdout_text);
    EXPECT_EQ(result.stdout_text, "syscall(-1) = -1 errno 38\nx32 getpid = -1 errno 38\n"
                                  "syscall(1000) = -1 errno 38\nstill running\n");
}

TEST(HermitRun, ForkExecAndPipe) {
    ProcessResult result = hermit_run({guest_path("tracer_fork_exec")});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "parent got: hello from the child\nchild status 0\n");
}

TEST(HermitRun, FutexPingPongCompletes) {
    ProcessResult result = hermit_run({guest_path("tracer_futex_pingpong")});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "pingpong done 200\n");
}

TEST(HermitRun, ThreadBlockedOnAPipeDoesNotDeadlock) {
    ProcessResult result = hermit_run({guest_path("tracer_pipe_block")});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "read 17: through the pipe\n");
}

// The two ends of a FIFO, opened by two guest processes: each open waits for the other, so the one that
// sleeps first is left in the kernel (not interrupted and retried) while the other runs.
TEST(HermitRun, ProcessesOpeningTheTwoEndsOfAFifoDoNotDeadlock) {
    for (const char* script :
         {"d=$(mktemp -d); mkfifo $d/f; cat $d/f & echo through > $d/f; wait; rm -r $d",
          "d=$(mktemp -d); mkfifo $d/f; (echo through > $d/f) & cat $d/f; wait; rm -r $d"}) {
        ProcessResult result = hermit_run({"sh", "-c", script});
        EXPECT_EQ(result.exit_status, 0) << script << ": " << result.stderr_text;
        EXPECT_EQ(result.stdout_text, "through\n") << script;
    }
}

TEST(HermitRun, MissingExecutableIs127WithE003) {
    ProcessResult result = hermit_run({"no-such-program-for-hermit"});
    EXPECT_EQ(result.exit_status, 127);
    EXPECT_NE(result.stderr_text.find("E003"), std::string::npos) << result.stderr_text;
}

// Every program that cannot run is refused before anything starts, saying why.
TEST(HermitRun, ProgramsThatCannotRunAreRefusedWithTheReason) {
    const std::string scratch = ::testing::TempDir() + "hermit-run-refused-" + std::to_string(getpid());
    {
        std::ofstream(scratch + "-text") << "hello\n";
        // The ELF identification of a 32-bit program: class ELFCLASS32.
        std::ofstream(scratch + "-elf32", std::ios::binary)
            << std::string("\x7f"
                           "ELF\x01\x01\x01\0\0\0\0\0\0\0\0\0",
                           16)
            << std::string(48, '\0');
    }
    chmod((scratch + "-text").c_str(), 0755);
    chmod((scratch + "-elf32").c_str(), 0755);
    const struct {
        std::string program;
        int exit_status;
        std::string says;
    } cases[] = {
        {"./no-such-program", 127,
         "error[E003]: cannot run './no-such-program': no such file or directory\n"},
        {"no-such-program-for-hermit", 127, "no such file or directory in PATH"},
        {"/tmp", 127, "error[E003]: cannot run '/tmp': is a directory"},
        {scratch + "-text", 126,
         "error[E006]: cannot run '" + scratch + "-text': not an ELF program or a script"},
        {scratch + "-elf32", 126,
         "error[E006]: cannot run '" + scratch + "-elf32': 32-bit programs are not supported"},
    };
    for (const auto& refused : cases) {
        const ProcessResult result = hermit_run({refused.program});
        EXPECT_EQ(result.exit_status, refused.exit_status) << refused.program << ": " << result.stderr_text;
        EXPECT_NE(result.stderr_text.find(refused.says), std::string::npos) << result.stderr_text;
    }
    std::remove((scratch + "-text").c_str());
    std::remove((scratch + "-elf32").c_str());
}

// An option of a mode needs the mode; modes exclude each other; a word that names no command, or an
// option no command has, says so.
TEST(HermitRun, OptionsThatCannotTakeEffectAreUsageErrors) {
    const struct {
        std::vector<std::string> argv;
        std::string says;
    } cases[] = {
        {{"run", "--verify-json", "out.json", "--", "true"}, "--verify-json requires --verify"},
        {{"run", "--strace-file", "trace.txt", "--", "true"}, "--strace-file requires --strace-only"},
        {{"run", "--namespace-only", "--strace-only", "--", "true"}, "excludes"},
        {{"run", "--namespace-only", "--no-namespaces", "--", "true"}, "excludes"},
        {{"run", "--verify", "--strace-only", "--", "true"}, "excludes"},
        {{"run", "--sched-heuristic=random", "--", "true"}, "--sched-heuristic requires --chaos"},
        {{"search", "--seeds=1..2", "--shards", "2", "--", "true"}, "--shards requires --emit-k8s-job"},
        {{"nosuchcommand"}, "unknown command 'nosuchcommand' (the commands are run, record"},
        {{"record", "start", "-p", "1", "--", "true"},
         "unknown option '-p' for 'hermit record start' (see 'hermit record start --help')"},
        {{"run", "--bogus", "--", "true"}, "unknown option '--bogus' for 'hermit run'"},
    };
    for (const auto& usage : cases) {
        std::vector<std::string> argv = {hermit_binary()};
        argv.insert(argv.end(), usage.argv.begin(), usage.argv.end());
        const ProcessResult result = run_process(argv);
        EXPECT_EQ(result.exit_status, 2) << usage.argv.front() << ": " << result.stderr_text;
        EXPECT_NE(result.stderr_text.find("error[E002]"), std::string::npos) << result.stderr_text;
        EXPECT_NE(result.stderr_text.find(usage.says), std::string::npos) << result.stderr_text;
    }
}

// Both runs of --verify start from the same files, and leave the working directory as it was: a build
// verifies instead of finding, in its second run, what the first built.
TEST(HermitRun, VerifyRunsBothRunsFromTheSameFilesAndLeavesThemAlone) {
    char pattern[] = "/tmp/hermit-verify-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::string directory = pattern;
    std::ofstream(directory + "/hello.c")
        << "#include <stdio.h>\nint main(void) { puts(\"hello\"); return 0; }\n";
    std::ofstream(directory + "/Makefile") << "hello: hello.c\n\tcc -o hello hello.c\n";
    const ProcessResult verified =
        run_process({"sh", "-c", "cd \"$1\" && exec \"$0\" run --verify -- sh -c 'make -s && ./hello'",
                     hermit_binary(), directory});
    EXPECT_EQ(verified.exit_status, 0) << verified.stderr_text;
    EXPECT_NE(verified.stderr_text.find("verify: identical"), std::string::npos) << verified.stderr_text;
    EXPECT_EQ(verified.stdout_text, "hello\n");
    EXPECT_NE(access((directory + "/hello").c_str(), F_OK), 0) << "the build stayed in the throwaway layer";
    std::filesystem::remove_all(directory);
}

// A 32-bit program a guest executes is refused with E006 and killed (its system calls would all fail), in
// run, record and replay alike; the shell that ran it sees SIGKILL.
TEST(HermitRun, A32BitProgramExecutedByTheGuestIsRefused) {
    const std::string scratch = ::testing::TempDir() + "hermit-elf32-" + std::to_string(getpid());
    std::ofstream(scratch + ".s") << ".globl _start\n_start:\n movl $1, %eax\n movl $7, %ebx\n int $0x80\n";
    if (run_process(
            {"sh", "-c", "as --32 -o \"$0.o\" \"$0.s\" && ld -m elf_i386 -o \"$0\" \"$0.o\"", scratch})
            .exit_status != 0) {
        GTEST_SKIP() << "binutils cannot make a 32-bit program here (as --32, ld -m elf_i386)";
    }
    const std::string script = "\"$0\"; echo status $?";
    const std::string refused =
        "error[E006]: cannot run '" + scratch + "': 32-bit programs are not supported";
    const ProcessResult run = hermit_run({"sh", "-c", script, scratch});
    EXPECT_EQ(run.stdout_text, "status 137\n") << run.stderr_text;
    EXPECT_NE(run.stderr_text.find(refused), std::string::npos) << run.stderr_text;
    const std::string data_dir = "HERMIT_DATA_DIR=" + scratch + "-recordings";
    const ProcessResult recorded = run_process(
        {hermit_binary(), "record", "start", "--", "sh", "-c", script, scratch}, "", 60, {data_dir});
    EXPECT_EQ(recorded.stdout_text, "status 137\n") << recorded.stderr_text;
    const ProcessResult replayed =
        run_process({hermit_binary(), "replay", "--autopilot"}, "", 60, {data_dir});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "status 137\n");
    for (const char* suffix : {"", ".s", ".o"}) {
        std::remove((scratch + suffix).c_str());
    }
    std::filesystem::remove_all(scratch + "-recordings");
}

// A search of a program that cannot start fails, instead of reporting "no failing seed".
TEST(HermitRun, SearchingAMissingProgramIsE003) {
    const ProcessResult result =
        run_process({hermit_binary(), "search", "--seeds=1..2", "--", "no-such-program"});
    EXPECT_EQ(result.exit_status, 127) << result.stdout_text;
    EXPECT_NE(result.stderr_text.find("error[E003]"), std::string::npos) << result.stderr_text;
}

// The trace file of --strace-only is hermit's: the guest does not inherit it (it took descriptor 3).
TEST(HermitRun, TheStraceFileIsNotTheGuests) {
    const std::string trace = ::testing::TempDir() + "hermit-strace-file-" + std::to_string(getpid());
    const ProcessResult result =
        hermit_run({"ls", "-l", "/proc/self/fd/"}, {"--strace-only", "--strace-file", trace});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text.find(trace), std::string::npos) << result.stdout_text;
    std::remove(trace.c_str());
}

TEST(HermitRun, MissingCommandIsE005) {
    ProcessResult result = run_process({hermit_binary(), "run"});
    EXPECT_EQ(result.exit_status, 2);
    EXPECT_NE(result.stderr_text.find("E005"), std::string::npos) << result.stderr_text;
}

TEST(HermitRun, UnavailableBackendIsE001) {
    ProcessResult result = run_process({hermit_binary(), "--backend=dbi", "run", "--", "true"});
    EXPECT_EQ(result.exit_status, 2);
    EXPECT_NE(result.stderr_text.find("E001"), std::string::npos) << result.stderr_text;
}

TEST(HermitRun, GuestIsPidOneOfItsNamespace) {
    ProcessResult result = hermit_run({"sh", "-c", "echo $$"});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "1\n");
}

TEST(HermitRun, NamespaceOnlyGuestIsPidOne) {
    ProcessResult result = hermit_run({"sh", "-c", "echo $$"}, {"--namespace-only"});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "1\n");
}

TEST(HermitRun, WithoutNamespacesGuestSeesHostPids) {
    ProcessResult result = hermit_run({"sh", "-c", "echo $$"}, {"--no-namespaces"});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_NE(result.stdout_text, "1\n");
}

// ---- cleanup when hermit itself is killed ----

// Host pids of processes whose command line is exactly `argv`.
std::vector<pid_t> processes_with_command_line(const std::vector<std::string>& argv) {
    std::string wanted;
    for (const auto& argument : argv) {
        wanted += argument;
        wanted.push_back('\0');
    }
    std::vector<pid_t> found;
    DIR* proc = opendir("/proc");
    while (dirent* entry = readdir(proc)) {
        pid_t pid = atoi(entry->d_name);
        if (pid <= 0) {
            continue;
        }
        std::ifstream stream("/proc/" + std::string(entry->d_name) + "/cmdline");
        std::stringstream text;
        text << stream.rdbuf();
        if (text.str() == wanted) {
            found.push_back(pid);
        }
    }
    closedir(proc);
    return found;
}

// Polls up to `seconds` for `condition`.
template <typename Condition> bool eventually(double seconds, Condition condition) {
    for (int attempt = 0; attempt < seconds * 100; ++attempt) {
        if (condition()) {
            return true;
        }
        usleep(10000);
    }
    return condition();
}

// The guest blocks for real reading a pipe that the test keeps open (a `sleep` would finish at once:
// hermit's sleeps advance virtual time instead of waiting). `marker` makes its command line unique.
void expect_guest_dies_with_hermit(int hermit_signal, const std::string& marker) {
    const std::vector<std::string> guest = {"cat", "-", marker};
    int input[2];
    ASSERT_EQ(pipe(input), 0);
    pid_t hermit = fork();
    ASSERT_GE(hermit, 0);
    if (hermit == 0) {
        dup2(input[0], STDIN_FILENO);
        close(input[0]);
        close(input[1]);
        execl(hermit_binary().c_str(), "hermit", "run", "--", "cat", "-", marker.c_str(), (char*)nullptr);
        _exit(127);
    }
    close(input[0]);
    ASSERT_TRUE(eventually(20, [&] { return !processes_with_command_line(guest).empty(); }))
        << "the guest never started";
    kill(hermit, hermit_signal);
    int status = 0;
    waitpid(hermit, &status, 0);
    EXPECT_TRUE(eventually(5, [&] { return processes_with_command_line(guest).empty(); }))
        << "the guest outlived hermit";
    close(input[1]);
}

TEST(HermitRun, KillingHermitKillsTheGuest) {
    expect_guest_dies_with_hermit(SIGKILL, "/nonexistent/marker.100.123");
}

TEST(HermitRun, TerminatingHermitKillsTheGuest) {
    expect_guest_dies_with_hermit(SIGTERM, "/nonexistent/marker.100.124");
}

TEST(HermitRun, SleepFinishesAtOnceInVirtualTime) {
    auto result = run_process({hermit_binary(), "run", "--", "sleep", "100"}, "", 20);
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
}

} // namespace
} // namespace hermit::testing

namespace hermit::testing {
namespace {

TEST(HermitRun, VerifyOfAMultithreadedGuestFindsIdenticalRuns) {
    auto result = run_process({hermit_binary(), "run", "--verify", "--", guest_path("tracer_threads")});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_NE(result.stderr_text.find("verify: identical"), std::string::npos) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "total=10000 finished=4\n");
}

// Timers and timed waits run on the virtual clock: exact durations, no waiting, the same every run.
TEST(HermitRun, AlarmsAndTimedWaitsUseTheVirtualClock) {
    auto alarm = run_process({hermit_binary(), "run", "--verify", "--", guest_path("tracer_alarm")}, "", 60);
    EXPECT_EQ(alarm.exit_status, 0) << alarm.stderr_text;
    EXPECT_EQ(alarm.stdout_text.rfind("alarm after 2000 ms, ticks=1\nticks=6 loops=", 0), 0u)
        << alarm.stdout_text;
    auto timed =
        run_process({hermit_binary(), "run", "--verify", "--", guest_path("tracer_timed_wait")}, "", 60);
    EXPECT_EQ(timed.exit_status, 0) << timed.stderr_text;
    // The producer's 30 ms sleep ends while the consumer waits in 10 ms steps: three waits, two time out,
    // as natively (a wait no longer times out at once while another thread could end it).
    EXPECT_EQ(timed.stdout_text, "poll=0 after 50 ms\ntimeouts=2 total 80 ms\n");
}

// Sleeps end on the virtual clock, and signals end them first as natively: a child killed in sleep(100)
// dies of SIGKILL (it does not sleep its 100 s in an instant and exit), a handled signal ends nanosleep with
// EINTR and the time left, and the shorter of two sleeps ends first. The recording replays the same. (What
// a native run prints too, unless the machine is so loaded that the signal comes before the sleep.)
TEST(HermitRun, SignalsEndSleepsAndShorterSleepsEndFirst) {
    const std::string expected = "sleeping child: killed by 9\ninterrupted sleep: EINTR, 9 s left\n"
                                 "woke in order BA\n";
    const ProcessResult verified =
        run_process({hermit_binary(), "run", "--verify", "--", guest_path("tracer_sleep_signals")}, "", 60);
    EXPECT_EQ(verified.exit_status, 0) << verified.stderr_text;
    EXPECT_EQ(verified.stdout_text, expected);
    EXPECT_NE(verified.stderr_text.find("verify: identical"), std::string::npos) << verified.stderr_text;
}

// The parent learns of a child's exit (SIGCHLD, wait4) at the same point of every run.
TEST(HermitRun, VerifyOfAPipelineFindsIdenticalRuns) {
    auto result = run_process(
        {hermit_binary(), "run", "--verify", "--", "sh", "-c", "seq 1 1000 | sort -rn | head -2"});
    EXPECT_EQ(result.exit_status, 0) << result.stderr_text;
    EXPECT_NE(result.stderr_text.find("verify: identical"), std::string::npos) << result.stderr_text;
    EXPECT_EQ(result.stdout_text, "1000\n999\n");
}

} // namespace
} // namespace hermit::testing
