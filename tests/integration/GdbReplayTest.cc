// The real gdb in batch mode against the real `hermit replay --serve-only` of recordings of
// tests/guests/debug_threads.c (three threads writing a global), gdb_steps.c (a loop calling a function) and
// gdb_fork.c and gdb_vfork.c (a forked child calling a function): breakpoints, backtraces, threads,
// watchpoints, monitor commands, reverse execution, the process gdb debugs (-f PID), and the same output from
// every debugging session of a recording.
#include "HermitProcess.h"
#include "replay/ArrivalCounter.h"
#include "replay/DebugRegisters.h"

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

std::string read_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The lines of gdb's output that matter for comparing sessions: the stops, frames and printed values.
std::string without_addresses(const std::string& output) {
    return std::regex_replace(output, std::regex("0x[0-9a-f]+"), "ADDR");
}

class GdbReplayTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (run_process({"sh", "-c", "command -v gdb"}).exit_status != 0) {
            GTEST_SKIP() << "gdb is not installed";
        }
        data_dir_ = std::filesystem::temp_directory_path() /
                    ("hermit-gdb-test-" + std::to_string(getpid()) + "-" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(data_dir_);
        std::filesystem::create_directories(data_dir_);
    }

    void TearDown() override {
        if (!data_dir_.empty()) {
            std::filesystem::remove_all(data_dir_);
        }
    }

    void record(const std::string& guest, int exit_status = 0) {
        guest_ = guest;
        record_command({guest_path(guest)}, exit_status);
    }
    // Records `command` (whose program gdb debugs is guest_'s, or gdb_program_).
    void record_command(const std::vector<std::string>& command, int exit_status = 0) {
        std::vector<std::string> argv{hermit_binary(), "record", "start", "--"};
        argv.insert(argv.end(), command.begin(), command.end());
        auto recorded = run_process(argv, "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
        ASSERT_EQ(recorded.exit_status, exit_status) << recorded.stderr_text;
    }
    // Records `guest` with its stdout a regular file.
    void record_to_file(const std::string& guest) {
        guest_ = guest;
        auto recorded =
            run_process({"sh", "-c", "exec \"$0\" record start -- \"$1\" > \"$2\"", hermit_binary(),
                         guest_path(guest), (data_dir_ / "recorded.out").string()},
                        "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
        ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    }

    struct Server {
        pid_t pid = 0;
        std::string port; // empty: it never listened
    };

    // Starts `hermit <server_arguments>` and waits until it listens.
    Server start_server(std::vector<std::string> server_arguments) {
        const std::filesystem::path server_stderr = data_dir_ / "server.err";
        pid_t server = fork();
        if (server == 0) {
            setenv("HERMIT_DATA_DIR", data_dir_.c_str(), 1);
            int error_fd = open(server_stderr.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            int output_fd = open((data_dir_ / "server.out").c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
            int null_fd = open("/dev/null", O_RDWR);
            dup2(null_fd, 0);
            dup2(output_fd, 1);
            dup2(error_fd, 2);
            // The guest must inherit exactly the descriptors it had when recorded (0-2), or its opens
            // return other numbers and the replay diverges.
            close(error_fd);
            close(output_fd);
            close(null_fd);
            std::vector<char*> argv{const_cast<char*>("hermit")};
            for (std::string& argument : server_arguments) {
                argv.push_back(argument.data());
            }
            argv.push_back(nullptr);
            execv(hermit_binary().c_str(), argv.data());
            _exit(127);
        }
        const std::regex listening("target remote :([0-9]+)");
        std::smatch match;
        std::string text;
        // The server prints its port once it listens: wait for that line (bounded, no timing assumption).
        for (int attempt = 0; attempt < 600 && !std::regex_search(text, match, listening); ++attempt) {
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
            text = read_text(server_stderr);
        }
        if (!std::regex_search(text, match, listening)) {
            ::kill(server, SIGKILL);
            waitpid(server, nullptr, 0);
            ADD_FAILURE() << "the server never listened: " << text;
            return {server, ""};
        }
        return {server, match[1].str()};
    }

    // The server's wait status once it ended by itself; a server still there after a generous bound (a
    // hang, not a slow machine) is killed and reported.
    int wait_for_server_end(pid_t server) {
        int status = 0;
        for (int attempt = 0; attempt < 1200; ++attempt) {
            if (waitpid(server, &status, WNOHANG) == server) {
                return status;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        ::kill(server, SIGKILL);
        waitpid(server, &status, 0);
        ADD_FAILURE() << "the server did not end: " << read_text(data_dir_ / "server.err");
        return status;
    }

    std::vector<std::string> gdb_command(const std::string& port, const std::vector<std::string>& commands) {
        const std::string target = extended_remote_ ? "target extended-remote :" : "target remote :";
        const std::string program = gdb_program_.empty() ? guest_path(guest_) : gdb_program_;
        std::vector<std::string> argv{"gdb", "-batch",        "-nx", program,
                                      "-ex", "set sysroot /", "-ex", target + port};
        for (const auto& command : commands) {
            argv.insert(argv.end(), {"-ex", command});
        }
        return argv;
    }

    // Starts `hermit <server_arguments>` (by default: serve the latest recording), runs gdb with
    // `commands` against it and returns gdb's output. The server must end by itself once gdb is done.
    std::string debug(const std::vector<std::string>& commands,
                      std::vector<std::string> server_arguments = {"replay", "latest", "--serve-only",
                                                                   "--gdbserver-port=0"}) {
        const Server server = start_server(std::move(server_arguments));
        if (server.port.empty()) {
            return {};
        }
        auto gdb = run_process(gdb_command(server.port, commands), "", 60);
        EXPECT_EQ(gdb.exit_status, 0) << gdb.stdout_text << gdb.stderr_text;
        const int status = wait_for_server_end(server.pid);
        EXPECT_TRUE(WIFEXITED(status)) << read_text(data_dir_ / "server.err");
        guest_output_ = read_text(data_dir_ / "server.out");
        // gdb prints stops and values on stdout, warnings and monitor output on stderr.
        return gdb.stdout_text + "--- gdb stderr ---\n" + gdb.stderr_text;
    }

    std::filesystem::path data_dir_;
    std::string guest_;
    std::string guest_output_; // what the guest wrote to the server's stdout in the last session
    std::string gdb_program_;  // the program gdb starts with; empty: the guest's
    bool extended_remote_ = false;
};

TEST_F(GdbReplayTest, BreakpointBacktraceThreadsAndVariablesAreTheSameEveryRun) {
    record("debug_threads");
    const std::vector<std::string> script{
        "break worker_step",    "continue",   "continue",     "bt",  "info threads",
        "print shared_counter", "print step", "monitor when", "kill"};
    const std::string output = debug(script);
    EXPECT_NE(output.find("Breakpoint 1, worker_step (step=step@entry=0)"), std::string::npos) << output;
    // The second stop is the first worker thread's first step, called from worker().
    EXPECT_TRUE(std::regex_search(output, std::regex("#1 [^\n]* worker \\([^\n]*debug_threads.c"))) << output;
    EXPECT_TRUE(std::regex_search(output, std::regex("\\* 2 +Thread 1\\.2 [^\n]*worker_step"))) << output;
    EXPECT_TRUE(std::regex_search(output, std::regex("  1 +Thread 1\\.1 "))) << output;
    EXPECT_NE(output.find("$1 = 1"), std::string::npos) << output;
    EXPECT_NE(output.find("$2 = 0"), std::string::npos) << output;
    EXPECT_NE(output.find("Current event: "), std::string::npos) << output;
    EXPECT_EQ(without_addresses(debug(script)), without_addresses(output));
}

// rr's crash-first workflow: run to the crash, look at it, then go back from it to the writes of the value.
TEST_F(GdbReplayTest, CrashIsAStopAndReverseExecutionGoesBackFromIt) {
    record("gdb_crash", 128 + SIGSEGV);
    const std::string output = debug({"continue", "bt", "print result", "watch -l result", "reverse-continue",
                                      "reverse-continue", "delete", "continue", "continue", "continue"});
    const std::regex sequence(
        R"re(Program received signal SIGSEGV, Segmentation fault\.\n[^\n]*store_result \(where=)re"
        R"re([^]*#0  [^\n]*store_result [^\n]*\n#1  [^\n]*main \(\) at [^\n]*gdb_crash.c:25\n)re"
        R"re(\$1 = 12\n)re"
        R"re([^]*Old value = 12\nNew value = 7\n)re"
        R"re([^]*Old value = 7\nNew value = 3\n)re"
        R"re([^]*Program received signal SIGSEGV, Segmentation fault\.)re"
        R"re([^]*Program received signal SIGKILL, Killed\.)re"
        R"re([^]*Program terminated with signal SIGSEGV, Segmentation fault\.)re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
    EXPECT_EQ(guest_output_, "result=12\n");
}

// Functions gdb calls, and values it sets, run in a diversion that is undone: the replay then goes on to
// the same end, with the values and output it recorded.
TEST_F(GdbReplayTest, InferiorCallsAndWritesRunInADiversionThatIsUndone) {
    record("gdb_crash", 128 + SIGSEGV);
    const std::string output =
        debug({"break accumulate", "continue", "print add(2, 3)", "x/s \"abc\"",
               "print (int)strlen(\"hello\")", "set var result = 100", "print result", "continue",
               "print result", "delete", "continue", "print add(40, 2)", "continue", "continue"});
    const std::regex sequence(R"re(Breakpoint 1, accumulate \(value=value@entry=3\))re"
                              R"re([^]*\$1 = 5\n[^\n]*"abc"\n\$2 = 5\n\$3 = 100\n)re"
                              R"re([^]*Breakpoint 1, accumulate \(value=value@entry=4\)[^]*\$4 = 3\n)re"
                              R"re([^]*Program received signal SIGSEGV[^]*\$5 = 42\n)re"
                              R"re([^]*Program received signal SIGKILL)re"
                              R"re([^]*Program terminated with signal SIGSEGV)re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
    EXPECT_EQ(guest_output_, "result=12\n");
}

// A module loaded with dlopen has its thread-local block where each thread's dtv says.
TEST_F(GdbReplayTest, ThreadLocalVariablesOfADlopenedModule) {
    guest_ = "gdb_dlopen_locals";
    const std::string module =
        (std::filesystem::path(guest_path(guest_)).parent_path() / "libthread_local_module.so").string();
    record_command({guest_path(guest_), module});
    const std::string output = debug({"break module_mark", "continue", "print module_counter", "thread 1",
                                      "print module_counter", "continue", "print module_counter", "kill"});
    const std::regex values(R"re(Thread 2 hit Breakpoint 1, module_mark[^]*\$1 = 35\n[^]*\$2 = 6\n)re"
                            R"re([^]*Thread 1 hit Breakpoint 1, module_mark[^]*\$3 = 6\n)re");
    EXPECT_TRUE(std::regex_search(output, values)) << output;
}

// Thread-local variables (errno among them) per thread, and the process's mappings from its own /proc.
TEST_F(GdbReplayTest, ThreadLocalVariablesAndMappings) {
    record("gdb_thread_locals");
    const std::string output =
        debug({"break worker_mark", "continue", "print errno", "print per_thread", "thread 1", "print errno",
               "print per_thread", "info proc mappings", "kill"});
    const std::regex sequence(
        R"re(\$1 = 33\n\$2 = 99\n[^]*\$3 = 11\n\$4 = 7\n[^]*rw-p +[^\n]*gdb_thread_locals)re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
    EXPECT_EQ(output.find("unable to open /proc"), std::string::npos) << output;
}

// `hermit replay` starts gdb itself, connected through a private socket; there gdb's checkpoint and restart
// are the replay's.
TEST_F(GdbReplayTest, HermitStartsGdbWithCheckpointsOfTheReplay) {
    record("gdb_steps");
    const auto session = run_process({hermit_binary(), "replay"},
                                     "break add_square\ncontinue\ncheckpoint\ncontinue\nprint value\n"
                                     "restart 1\nprint value\nbt 1\nquit\n",
                                     60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    EXPECT_EQ(session.exit_status, 0) << session.stderr_text;
    const std::regex sequence(R"re(\$1 = 2\n[^]*\$2 = 1\n[^]*#0  add_square \(value=value@entry=1\))re"
                              R"re([^]*Checkpoint 1 at event [0-9]+\n[^]*Back at checkpoint 1)re");
    // gdb prints monitor output on stderr.
    const std::string output = session.stdout_text + session.stderr_text;
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
    EXPECT_EQ(session.stdout_text.find("target remote :"), std::string::npos) << "no TCP port";
}

// The end of the replay is a stop (SIGKILL, as rr shows it) from which gdb can go back; continuing past it
// reports the recorded exit.
TEST_F(GdbReplayTest, TheExitIsAStopToGoBackFrom) {
    record("gdb_steps");
    const std::string output =
        debug({"break add_square", "continue", "delete", "continue", "print total", "break add_square",
               "reverse-continue", "print value", "delete", "continue", "continue"});
    const std::regex sequence(R"re(Program received signal SIGKILL, Killed\.[^]*\$1 = 30\n)re"
                              R"re([^]*Breakpoint 2, add_square \(value=value@entry=4\)[^]*\$2 = 4\n)re"
                              R"re([^]*Program received signal SIGKILL, Killed\.)re"
                              R"re([^]*\[Inferior 1 \(process 1\) exited normally\])re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
}

TEST_F(GdbReplayTest, AWaitingServerEndsOnTerminationSignals) {
    record("gdb_steps");
    for (int signal_number : {SIGTERM, SIGINT, SIGHUP}) {
        const Server server = start_server({"replay", "latest", "--serve-only", "--gdbserver-port=0"});
        ASSERT_FALSE(server.port.empty());
        ::kill(server.pid, signal_number);
        const int status = wait_for_server_end(server.pid);
        ASSERT_TRUE(WIFEXITED(status)) << status;
        EXPECT_EQ(WEXITSTATUS(status), 128 + signal_number);
    }
}

// gdb killed while the server works for it (here a step back over a million-iteration loop, which counts a
// million arrivals, seconds): the server notices, stops and ends, leaving no process behind.
TEST_F(GdbReplayTest, TheServerEndsWhenGdbVanishesDuringALongOperation) {
    record("gdb_long_loop");
    const Server server = start_server({"replay", "latest", "--serve-only", "--gdbserver-port=0"});
    ASSERT_FALSE(server.port.empty());
    std::vector<std::string> argv = {"timeout", "-s", "KILL", "2"};
    for (const std::string& word :
         gdb_command(server.port, {"break late_mark", "continue", "reverse-stepi"})) {
        argv.push_back(word);
    }
    run_process(argv, "", 60);
    const int status = wait_for_server_end(server.pid);
    EXPECT_TRUE(WIFEXITED(status)) << status;
}

// rr's reverse-stepi after a long continue, without an instruction counter: a step back from after a loop of
// a million iterations lands on its last instruction (the hardware counts the arrivals, the replay jumps to
// the last one), and reverse-continue from there finds the mark before the loop. Timed in bench/.
TEST_F(GdbReplayTest, StepsBackOverALongLoopLandInItsLastIteration) {
    if (!hermit::replay::ArrivalCounter::available()) {
        GTEST_SKIP() << "this host cannot count arrivals with hardware breakpoints (perf_event_open of "
                        "PERF_TYPE_BREAKPOINT with sigtrap); a step back single-steps the whole loop";
    }
    record("gdb_long_loop");
    const std::string output =
        debug({"break late_mark", "continue", "reverse-stepi", "x/i $pc", "reverse-stepi", "print index",
               "print sum", "reverse-step", "print index", "break early_mark", "reverse-continue",
               "print sum", "continue", "print sum", "delete", "continue", "continue"});
    const std::regex sequence(R"re(Breakpoint 1, late_mark \(\))re"
                              R"re([^]*main \(\) at [^\n]*gdb_long_loop.c:20\n)re"
                              R"re([^]*=> 0x[0-9a-f]+ <main\+[0-9]+>:\tcall +0x[0-9a-f]+ <late_mark>\n)re"
                              R"re(0x[0-9a-f]+\t17\t[^\n]*\n)re"
                              R"re(\$1 = 1000000\n\$2 = 499999500001\n)re"
                              R"re(17\t[^\n]*\n\$3 = 999999\n)re"
                              R"re([^]*Breakpoint 2, early_mark \(\)[^]*\$4 = 0\n)re"
                              R"re([^]*Breakpoint 1, late_mark \(\)[^]*\$5 = 499999500001\n)re"
                              R"re([^]*Program received signal SIGKILL[^]*exited normally)re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
    EXPECT_EQ(output.find("Cannot remove breakpoints"), std::string::npos) << output;
    EXPECT_EQ(guest_output_, "sum=499999500003\n");
}

TEST_F(GdbReplayTest, WatchpointStopsAtEachWriteOfEveryThread) {
    record("debug_threads");
    const std::string output = debug({"break main", "continue", "watch shared_counter", "continue",
                                      "continue", "continue", "thread", "print shared_counter", "kill"});
    EXPECT_NE(output.find("Hardware watchpoint 2: shared_counter"), std::string::npos) << output;
    EXPECT_NE(output.find("Old value = 0\nNew value = 1"), std::string::npos) << output;
    EXPECT_NE(output.find("Old value = 1\nNew value = 2"), std::string::npos) << output;
    EXPECT_NE(output.find("Old value = 2\nNew value = 4"), std::string::npos) << output;
    // The second and third writes are the first worker's.
    EXPECT_TRUE(std::regex_search(output, std::regex("Current thread is 2 \\(Thread 1\\.2\\)"))) << output;
    EXPECT_NE(output.find("$1 = 4"), std::string::npos) << output;
}

// A watched range wider than a debug register (16 bytes over `total`) takes two of them, forwards and back.
TEST_F(GdbReplayTest, WatchRangesWiderThanADebugRegisterAreSplit) {
    record("gdb_steps");
    const std::string output = debug({"break main", "continue", "watch -l *(char(*)[16])&total", "continue",
                                      "continue", "print total", "reverse-continue", "print total", "kill"});
    const std::regex sequence(R"re(Hardware watchpoint 2: -location \*\(char\(\*\)\[16\]\)&total\n)re"
                              R"re([^]*New value = "\\001", '\\000' <repeats 14 times>)re"
                              R"re([^]*New value = "\\005", '\\000' <repeats 14 times>[^]*\$1 = 5\n)re"
                              R"re([^]*Old value = "\\005"[^]*\$2 = 1\n)re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
}

TEST_F(GdbReplayTest, ReverseContinueFromTheEndReturnsToTheLastWrites) {
    record("debug_threads");
    const std::string output =
        debug({"break debug_threads.c:34", "continue", "print shared_counter", "watch shared_counter",
               "reverse-continue", "thread", "print shared_counter", "reverse-continue", "thread",
               "print shared_counter", "reverse-continue", "thread", "kill"});
    EXPECT_NE(output.find("$1 = 10"), std::string::npos) << output;
    // Going backwards a write is met just before it happens: gdb shows the later value as the old one.
    const std::regex writes(
        R"re(hit Hardware watchpoint 2: shared_counter\n\nOld value = 10\nNew value = 8\n)re"
        R"re([^]*Current thread is [0-9]+ \(Thread 1\.4\)[^]*\$2 = 8\n)re"
        R"re([^]*Old value = 8\nNew value = 7\n)re"
        R"re([^]*Current thread is [0-9]+ \(Thread 1\.4\)[^]*\$3 = 7\n)re"
        R"re([^]*Old value = 7\nNew value = 5\n[^]*Current thread is [0-9]+ \(Thread 1\.3\))re");
    EXPECT_TRUE(std::regex_search(output, writes)) << output;
}

// Where debug registers never trap, write watchpoints are emulated by single-stepping (the two tests above
// run either way); a read cannot be seen that way, so read and access watchpoints are refused.
TEST_F(GdbReplayTest, ReadWatchpointsAreRefusedWhereTheHostCannotTrapThem) {
    if (hermit::replay::host_delivers_watchpoint_traps()) {
        GTEST_SKIP() << "this host traps watched accesses: read watchpoints work here";
    }
    record("debug_threads");
    const std::string output = debug({"break main", "continue", "rwatch shared_counter", "continue", "kill"});
    EXPECT_NE(output.find("Could not insert hardware watchpoint 2"), std::string::npos) << output;
}

TEST_F(GdbReplayTest, BreakMainContinueBacktraceReverseContinue) {
    record("gdb_steps");
    const std::vector<std::string> script{"break main",       "break add_square",
                                          "continue",         "continue",
                                          "continue",         "bt",
                                          "reverse-continue", "bt",
                                          "reverse-continue", "bt",
                                          "reverse-continue", "kill"};
    const std::string output = debug(script);
    const std::regex frames(
        R"re(Breakpoint 1, main \(\) at [^\n]*gdb_steps.c:[0-9]+\n)re"
        R"re([^]*Breakpoint 2, add_square \(value=value@entry=1\))re"
        R"re([^]*Breakpoint 2, add_square \(value=value@entry=2\))re"
        R"re([^]*#0  add_square \(value=value@entry=2\) at [^\n]*\n#1  [^\n]* in main \(\) at [^\n]*gdb_steps.c:16\n)re"
        R"re([^]*Breakpoint 2, add_square \(value=value@entry=1\))re"
        R"re([^]*#0  add_square \(value=value@entry=1\)[^]*#1  [^\n]* in main \(\))re"
        R"re([^]*Breakpoint 1, main \(\)[^]*#0  main \(\) at [^\n]*gdb_steps.c:[0-9]+\n)re"
        R"re([^]*No more reverse-execution history.)re");
    EXPECT_TRUE(std::regex_search(output, frames)) << output;
    // Going back replays the recording again, but what the guest printed is printed once.
    EXPECT_EQ(guest_output_, "square 1 = 1\n");
    // Debugging the recording again, reverse execution included, stops at the same places.
    EXPECT_EQ(without_addresses(debug(script)), without_addresses(output));
}

TEST_F(GdbReplayTest, OutputToAFileWhenRecordedIsPrintedOnceGoingBackAndForth) {
    record_to_file("gdb_steps");
    const std::string output = debug({"break add_square", "continue", "continue", "reverse-continue",
                                      "reverse-continue", "continue", "continue", "kill"});
    EXPECT_NE(output.find("Breakpoint 1, add_square (value=value@entry=2)"), std::string::npos) << output;
    EXPECT_EQ(guest_output_, "square 1 = 1\n") << output;
}

// `env PROGRAM` execs PROGRAM in the process gdb debugs: gdb loads it at the exec, its breakpoints resolve
// there, and going backwards the exec is where history begins.
TEST_F(GdbReplayTest, AnExecLoadsTheNewProgramAndBeginsItsHistory) {
    guest_ = "gdb_steps";
    gdb_program_ = "/usr/bin/env";
    record_command({"env", guest_path(guest_)});
    const std::string output =
        debug({"set breakpoint pending on", "break add_square", "continue", "continue", "reverse-continue",
               "reverse-continue", "reverse-stepi", "continue", "info inferiors", "kill"});
    const std::regex stops(
        R"re(process 1 is executing new program: [^\n]*gdb_steps\n)re"
        R"re([^]*Breakpoint 1, add_square \(value=value@entry=1\))re"
        R"re([^]*Breakpoint 1, add_square \(value=value@entry=2\))re"
        R"re([^]*Breakpoint 1, add_square \(value=value@entry=1\))re"
        R"re([^]*No more reverse-execution history.\n[^\n]*_start \(\) from [^\n]*ld-linux)re"
        R"re([^]*No more reverse-execution history.\n[^\n]*_start \(\) from [^\n]*ld-linux)re"
        R"re([^]*Breakpoint 1, add_square \(value=value@entry=1\))re"
        R"re([^]*1 +process 1 [^\n]*gdb_steps)re");
    EXPECT_TRUE(std::regex_search(output, stops)) << output;
    EXPECT_EQ(guest_output_, "square 1 = 1\n");
    EXPECT_NE(debug({"catch exec", "continue", "kill"}).find("Catchpoint 1 (exec'd "), std::string::npos);
}

TEST_F(GdbReplayTest, ReverseStepNextAndFinish) {
    record("gdb_steps");
    const std::string output =
        debug({"break add_square", "continue", "continue", "reverse-step", "reverse-step", "reverse-next",
               "reverse-next", "print value", "continue", "reverse-finish", "monitor when", "kill"});
    const std::regex lines(R"re(Breakpoint 1, add_square \(value=value@entry=2\))re"
                           R"re([^]*main \(\) at [^\n]*gdb_steps.c:16\n16\t[^\n]*\n)re"
                           R"re(15\t[^\n]*\n19\t[^\n]*\n18\t[^\n]*\n\$1 = 1\n)re"
                           R"re([^]*Breakpoint 1, add_square \(value=value@entry=2\))re"
                           R"re([^]*in main \(\) at [^\n]*gdb_steps.c:16\n)re");
    EXPECT_TRUE(std::regex_search(output, lines)) << output;
    EXPECT_NE(output.find("Current event: "), std::string::npos) << output;
}

TEST_F(GdbReplayTest, ForwardStepsAreRetracedBackwards) {
    record("gdb_steps");
    const std::string output =
        debug({"break main", "continue", "next", "next", "next", "reverse-next", "reverse-next", "next",
               "stepi", "stepi", "reverse-stepi", "info registers rip", "kill"});
    const std::regex lines(
        R"re(Breakpoint 1, main \(\)[^]*\n15\t[^\n]*\n16\t[^\n]*\n17\t[^\n]*\n)re"
        R"re(16\t[^\n]*\n15\t[^\n]*\n16\t[^\n]*\n0x0*([0-9a-f]+)\t16\t[^\n]*\n)re"
        R"re(add_square \(value=value@entry=1\)[^]*0x0*([0-9a-f]+) in main \(\)[^]*rip +0x([0-9a-f]+))re");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(output, match, lines)) << output;
    // Back one instruction from add_square is the call instruction the first stepi reached.
    EXPECT_EQ(match[2].str(), match[1].str()) << output;
    EXPECT_EQ(match[3].str(), match[1].str()) << output;
}

// rr's `run`: in extended-remote mode (the gdb hermit starts uses it) the replay starts over with gdb's
// breakpoints, whether the program runs or gdb killed it; the server waits for gdb meanwhile.
TEST_F(GdbReplayTest, RunStartsTheReplayOverKeepingBreakpoints) {
    record("gdb_steps");
    extended_remote_ = true;
    const std::string output = debug({"break add_square", "continue", "continue", "print value", "run",
                                      "print value", "continue", "kill", "run", "print value", "kill"});
    const std::regex sequence(
        R"re(\$1 = 2\n)re"
        R"re([^]*Breakpoint 1, add_square \(value=value@entry=1\)[^]*\$2 = 1\n)re"
        R"re([^]*Breakpoint 1, add_square \(value=value@entry=2\))re"
        R"re([^]*killed[^]*Breakpoint 1, add_square \(value=value@entry=1\)[^]*\$3 = 1\n)re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
}

TEST_F(GdbReplayTest, LiveRunDebugsForwardsOnly) {
    guest_ = "gdb_steps";
    const std::string output = debug(
        {"break add_square", "continue", "continue", "print value", "reverse-continue", "delete", "continue"},
        {"run", "--gdbserver-port=0", "--serve-only", "--", guest_path(guest_)});
    EXPECT_NE(output.find("Breakpoint 1, add_square (value=value@entry=2)"), std::string::npos) << output;
    EXPECT_NE(output.find("$1 = 2"), std::string::npos) << output;
    EXPECT_NE(output.find("Target remote does not support this command."), std::string::npos) << output;
    EXPECT_NE(output.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << output;
}

TEST_F(GdbReplayTest, GotoEventCheckpointAndRestart) {
    record("gdb_steps");
    // The event that wrote "square 3 = 9" (its stdout event follows it in `hermit record dump`).
    auto dump = run_process({hermit_binary(), "record", "dump", "latest"}, "", 60,
                            {"HERMIT_DATA_DIR=" + data_dir_.string()});
    std::smatch written;
    ASSERT_TRUE(
        std::regex_search(dump.stdout_text, written,
                          std::regex(R"re(\n([0-9]+): thread 1: wrote 13 bytes to stdout "square 3 = 9)re")))
        << dump.stdout_text;
    const uint64_t write_event = std::stoull(written[1].str()) - 1;
    // The replay starts right after that write, and can still go back before it.
    const std::string output =
        debug({"bt 7", "monitor when", "break add_square", "continue", "print value", "monitor checkpoint",
               "reverse-continue", "print value", "monitor restart 1", "maintenance flush register-cache",
               "bt 1", "monitor restart 9", "kill"},
              {"replay", "latest", "--serve-only", "--gdbserver-port=0",
               "--goto-event=" + std::to_string(write_event)});
    const std::regex sequence(R"re(in main \(\) at [^\n]*gdb_steps.c:18\n)re"
                              R"re([^]*Breakpoint 1, add_square \(value=value@entry=4\))re"
                              R"re([^]*\$1 = 4\n[^]*Breakpoint 1, add_square \(value=value@entry=3\))re"
                              R"re([^]*\$2 = 3\n[^]*#0  add_square \(value=value@entry=4\))re");
    EXPECT_TRUE(std::regex_search(output, sequence)) << output;
    // Positions count recorded events: the write and its stdout event are behind.
    const std::string after_write = std::to_string(write_event + 2);
    EXPECT_NE(output.find("Current event: " + after_write + ", debugger stops since: 1"), std::string::npos)
        << output;
    EXPECT_NE(output.find("Checkpoint 1 at event " + after_write), std::string::npos) << output;
    EXPECT_NE(output.find("No checkpoint 9"), std::string::npos) << output;
}

TEST_F(GdbReplayTest, GotoEventPastTheEndIsAUsageError) {
    record("gdb_steps");
    auto replay = run_process({hermit_binary(), "replay", "latest", "--serve-only", "--goto-event=100000"},
                              "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    EXPECT_EQ(replay.exit_status, 2) << replay.stderr_text;
    EXPECT_NE(replay.stderr_text.find("E002"), std::string::npos) << replay.stderr_text;
    EXPECT_NE(replay.stderr_text.find("--goto-event=100000 is past the last event"), std::string::npos)
        << replay.stderr_text;
}

TEST_F(GdbReplayTest, ForkChildRunsFreelyWhileTheInitialProcessIsDebugged) {
    record("gdb_fork");
    const std::string output = debug({"break child_work", "continue", "info inferiors", "continue"});
    // The breakpoint is the parent's: the child runs the original code and is never a stop.
    EXPECT_EQ(output.find("Breakpoint 1, child_work"), std::string::npos) << output;
    EXPECT_EQ(output.find("New inferior"), std::string::npos) << output;
    EXPECT_NE(output.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << output;
    EXPECT_EQ(guest_output_, "child 42\nparent done 0\n");
}

TEST_F(GdbReplayTest, VforkChildStepsOverTheBreakpointsInTheMemoryItShares) {
    record("gdb_vfork");
    const std::string output =
        debug({"break record_value", "continue", "print value", "continue", "continue"});
    // The child's call is no stop (nor a SIGTRAP for it): the only stop is the parent's.
    EXPECT_NE(output.find("Breakpoint 1, record_value (value=value@entry=5)"), std::string::npos) << output;
    EXPECT_EQ(output.find("value=value@entry=21"), std::string::npos) << output;
    EXPECT_NE(output.find("$1 = 5"), std::string::npos) << output;
    EXPECT_NE(output.find("[Inferior 1 (process 1) exited normally]"), std::string::npos) << output;
    EXPECT_EQ(guest_output_, "parent done 3 5\n");
}

TEST_F(GdbReplayTest, FollowedForkChildIsDebuggedBackwardsAndForwards) {
    record("gdb_fork");
    auto dump = run_process({hermit_binary(), "record", "dump", "latest"}, "", 60,
                            {"HERMIT_DATA_DIR=" + data_dir_.string()});
    std::smatch started;
    ASSERT_TRUE(std::regex_search(dump.stdout_text, started,
                                  std::regex(R"re(thread ([0-9]+): started by thread 1 \(new process\))re")))
        << dump.stdout_text;
    const std::string child = started[1].str();
    const std::string output = debug({"bt", "break child_work", "continue", "bt", "print n", "info threads",
                                      "reverse-continue", "continue", "finish", "continue", "continue"},
                                     {"replay", "latest", "--serve-only", "--gdbserver-port=0", "-f", child});
    // The first stop is in the child, where fork() returns in it; going back stops there again, and
    // `finish` returns to main.
    const std::regex sequence(
        R"re(#[0-9]+ [^\n]* in main \(\) at [^\n]*gdb_fork.c:15\n)re"
        R"re([^]*Breakpoint 1, child_work \(n=n@entry=21\))re"
        R"re([^]*#0  child_work \(n=n@entry=21\)[^\n]*\n#1  [^\n]* in main \(\) at [^\n]*gdb_fork.c:17\n)re"
        R"re(\$1 = 21\n[^]*\* 1 +Thread ([0-9]+)\.[0-9]+ [^\n]*child_work)re"
        R"re([^]*No more reverse-execution history.\narch_fork )re"
        R"re([^]*Breakpoint 1, child_work \(n=n@entry=21\))re"
        R"re([^]*\nmain \(\) at [^\n]*gdb_fork.c:18\n18\t +return 0;\n)re"
        R"re([^]*\[Inferior 1 \(process ([0-9]+)\) exited normally\])re");
    std::smatch match;
    ASSERT_TRUE(std::regex_search(output, match, sequence)) << output;
    EXPECT_EQ(match[1].str(), child) << output;
    EXPECT_EQ(match[2].str(), child) << output;
    EXPECT_EQ(guest_output_, "child 42\nparent done 0\n");
}

TEST_F(GdbReplayTest, FollowingAProcessTheRecordingLacksIsAUsageError) {
    record("gdb_fork");
    auto replay = run_process({hermit_binary(), "replay", "latest", "--serve-only", "-f", "999"}, "", 60,
                              {"HERMIT_DATA_DIR=" + data_dir_.string()});
    EXPECT_EQ(replay.exit_status, 2) << replay.stderr_text;
    EXPECT_NE(replay.stderr_text.find("E063"), std::string::npos) << replay.stderr_text;
    EXPECT_NE(replay.stderr_text.find("cannot follow process 999"), std::string::npos) << replay.stderr_text;
}

} // namespace
