// Issue #4 end to end: for each determinism topic a guest from tests/guests/determinism_*.c whose output
// differs between two native runs must print the same bytes in 20 runs under `hermit run` and exit 0.
// Besides, the "Must show" items of the issue that no other test covers: `date`, a python one-liner and a
// racing 4-thread guest identical 20/20, and the report of a thread that spins while others wait.

#include "HermitProcess.h"

#include "tracer/virt/HostProbe.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace hermit::testing {
namespace {

namespace fs = std::filesystem;

constexpr int kRepetitions = 20;
constexpr int kTimeoutSeconds = 60;
// A native run may by chance print what the one before printed; this many pairs must all agree to fail.
constexpr int kNativeAttempts = 4;

ProcessResult hermit_run(const std::vector<std::string>& command,
                         const std::vector<std::string>& options = {},
                         int timeout_seconds = kTimeoutSeconds) {
    std::vector<std::string> argv = {hermit_binary(), "run"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return run_process(argv, "", timeout_seconds);
}

// A fresh scratch directory per call, removed by the destructor (for guests that create files).
class ScratchDirectory {
public:
    ScratchDirectory() {
        char pattern[] = "/tmp/hermit-determinism-XXXXXX";
        if (mkdtemp(pattern) != nullptr) {
            path_ = pattern;
        }
    }
    ~ScratchDirectory() {
        std::error_code ignored;
        fs::remove_all(path_, ignored);
    }
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;
    std::string path() const { return path_.string(); }

private:
    fs::path path_;
};

// The guest's command line; guests that create files get a fresh scratch directory as argument per run.
std::vector<std::string> guest_command(const std::string& guest, const ScratchDirectory* scratch) {
    std::vector<std::string> command = {guest_path(guest)};
    if (scratch != nullptr) {
        command.push_back(scratch->path());
    }
    return command;
}

void expect_native_runs_differ(const std::string& guest, bool needs_scratch) {
    std::vector<std::string> outputs;
    for (int attempt = 0; attempt < kNativeAttempts; ++attempt) {
        ScratchDirectory scratch;
        const ProcessResult native =
            run_process(guest_command(guest, needs_scratch ? &scratch : nullptr), "", kTimeoutSeconds);
        ASSERT_EQ(native.exit_status, 0) << guest << " natively:\n" << native.stderr_text;
        if (!outputs.empty() && native.stdout_text != outputs.back()) {
            return;
        }
        outputs.push_back(native.stdout_text);
    }
    ADD_FAILURE() << guest << " printed the same in " << kNativeAttempts
                  << " native runs: it does not exercise what it is meant to:\n"
                  << outputs.back();
}

// Runs the guest kRepetitions times under hermit; every run must exit 0 and print what the first printed,
// which is returned.
std::string expect_identical_hermit_runs(const std::vector<std::string>& command,
                                         const std::vector<std::string>& options = {},
                                         bool needs_scratch = false) {
    std::string first_output;
    for (int run = 0; run < kRepetitions; ++run) {
        ScratchDirectory scratch;
        std::vector<std::string> argv = command;
        if (needs_scratch) {
            argv.push_back(scratch.path());
        }
        const ProcessResult result = hermit_run(argv, options);
        EXPECT_EQ(result.exit_status, 0) << "run " << run + 1 << ":\n" << result.stderr_text;
        if (run == 0) {
            first_output = result.stdout_text;
        } else if (result.stdout_text != first_output) {
            ADD_FAILURE() << "run " << run + 1 << " differs from run 1:\n"
                          << result.stdout_text << "\nrun 1:\n"
                          << first_output;
            break;
        }
    }
    return first_output;
}

std::string expect_deterministic_guest(const std::string& guest, bool needs_scratch = false) {
    expect_native_runs_differ(guest, needs_scratch);
    return expect_identical_hermit_runs({guest_path(guest)}, {}, needs_scratch);
}

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

// `run --verify` compares the event sequences of two runs too, not only what the guest printed.
void expect_verify_identical(const std::string& guest) {
    const ProcessResult verified = hermit_run({guest_path(guest)}, {"--verify"});
    EXPECT_EQ(verified.exit_status, 0) << verified.stderr_text;
    EXPECT_TRUE(contains(verified.stderr_text, "verify: identical")) << verified.stderr_text;
}

// Thread scheduling: unsynchronized counters and printf from 4 threads, a mutex, a condition variable, a
// barrier and joins.
TEST(Determinism, ThreadScheduling) {
    const std::string output = expect_deterministic_guest("determinism_threads");
    // One thread at a time: the unsynchronized counter loses no update.
    EXPECT_TRUE(contains(output, "racy total 800000 of 800000, joined 60\n")) << output;
    EXPECT_TRUE(contains(output, "serial thread ")) << output;
}

// Pipes with epoll, poll and select; eventfd; timerfd; signalfd; blocking reads that only end when another
// thread runs.
TEST(Determinism, DescriptorWaits) {
    const std::string output = expect_deterministic_guest("determinism_io");
    EXPECT_TRUE(contains(output, "timerfd read 1 after 50")) << output;
    EXPECT_TRUE(contains(output, "pipe read 'late'")) << output;
    EXPECT_TRUE(contains(output, "eventfd read 7")) << output;
    EXPECT_TRUE(contains(output, "signalfd read signal 10 from pid 1 ")) << output;
    EXPECT_TRUE(contains(output, "epoll of a signalfd: 1 ready, signal 12 ")) << output;
    expect_verify_identical("determinism_io");
}

// fork/exec, wait order, SIGCHLD, pids and tids, kill and tgkill, alarm, setitimer and sigtimedwait.
TEST(Determinism, ProcessesSignalsAndAlarms) {
    const std::string output = expect_deterministic_guest("determinism_procs");
    EXPECT_TRUE(contains(output, "parent pid 1 tid 1\n")) << output;
    EXPECT_TRUE(contains(output, "exec'd pid 2 ppid 1 says hello\n")) << output;
    EXPECT_TRUE(contains(output, "exec'd pid 1 ppid 0 says goodbye\n")) << output;
    EXPECT_TRUE(contains(output, "sigchld handled 3 times\n")) << output;
    EXPECT_TRUE(contains(output, "alarm after 1000")) << output;
    EXPECT_TRUE(contains(output, "sigtimedwait -1 (timed out) after 300")) << output;
}

// Every clock (vDSO and syscall), sleeps, a POSIX timer, CPU-time timers, times, getrusage,
// sysinfo and /proc/uptime.
TEST(Determinism, TimeIsVirtual) {
    const std::string output = expect_deterministic_guest("determinism_time");
    EXPECT_TRUE(contains(output, "realtime 946684800")) << output;
    EXPECT_TRUE(contains(output, "slept 1375")) << output;
    EXPECT_TRUE(contains(output, "posix timer: 3 signals after 60")) << output;
    EXPECT_TRUE(contains(output, "sigev_thread timer: 3 calls after 30")) << output;
    expect_verify_identical("determinism_time");
}

// rdtsc and rdtscp read a virtual counter that advances with the virtual clock.
TEST(Determinism, TimeStampCounterIsVirtual) {
    if (!tracer::virt::probe_tsc_trapping()) {
        GTEST_SKIP() << "rdtsc does not fault on this host after prctl(PR_SET_TSC): hermit warns and the "
                        "guest reads the real counter";
    }
    const std::string output = expect_deterministic_guest("determinism_tsc");
    EXPECT_TRUE(contains(output, ", later\n")) << output;
    expect_verify_identical("determinism_tsc");
}

// getrandom, /dev/urandom, /dev/random, AT_RANDOM and the addresses ASLR would move; --seed changes the
// random bytes and nothing else.
TEST(Determinism, RandomnessFollowsTheSeed) {
    const std::string output = expect_deterministic_guest("determinism_random");
    const ProcessResult other_seed = hermit_run({guest_path("determinism_random")}, {"--seed=7"});
    ASSERT_EQ(other_seed.exit_status, 0) << other_seed.stderr_text;
    const ProcessResult other_seed_again = hermit_run({guest_path("determinism_random")}, {"--seed=7"});
    EXPECT_EQ(other_seed.stdout_text, other_seed_again.stdout_text);
    for (const std::string key :
         {"getrandom ", "getrandom_random ", "/dev/urandom ", "/dev/random ", "at_random ", "rand "}) {
        const auto line_of = [&key](const std::string& text) {
            const size_t start = text.find("\n" + key) + 1;
            return text.substr(start, text.find('\n', start) - start);
        };
        EXPECT_NE(line_of(output), line_of(other_seed.stdout_text)) << key;
    }
    const size_t addresses = output.find("address ");
    ASSERT_NE(addresses, std::string::npos) << output;
    EXPECT_EQ(output.substr(addresses),
              other_seed.stdout_text.substr(other_seed.stdout_text.find("address ")));
}

// uname, CPU counts (/proc/cpuinfo, sysconf, affinity), getcpu, stat timestamps, inodes and directory order.
TEST(Determinism, HostFactsAreVirtual) {
    const std::string output = expect_deterministic_guest("determinism_host", true);
    EXPECT_TRUE(contains(output, "uname Linux hermit 5.15.0-hermit")) << output;
    EXPECT_TRUE(contains(output, "cpuinfo 2 online 2 configured 2 affinity 2\n")) << output;
    EXPECT_TRUE(contains(output, "getcpu 0 node 0 sched_getcpu 0\n")) << output;
    const ProcessResult nproc = hermit_run({"nproc"});
    EXPECT_EQ(nproc.stdout_text, "2\n") << nproc.stderr_text;
    // Files the guest made: times from the virtual clock, in the order it made them, each with equal
    // modification, change and access times.
    const std::regex made("size \\d+ ino \\d+ dev 42 mtime (\\d+)\\.(\\d{9}) ctime (\\d+) atime (\\d+)\n");
    std::vector<std::pair<long long, long long>> times;
    for (auto match = std::sregex_iterator(output.begin(), output.end(), made);
         match != std::sregex_iterator(); ++match) {
        times.emplace_back(std::stoll((*match)[1]), std::stoll((*match)[2]));
        EXPECT_EQ((*match)[3], (*match)[1]) << output;
        EXPECT_EQ((*match)[4], (*match)[1]) << output;
    }
    EXPECT_EQ(times.size(), 6u) << output;
    EXPECT_TRUE(std::is_sorted(times.begin(), times.end()) &&
                std::adjacent_find(times.begin(), times.end()) == times.end())
        << output;
    // getdents lists by name, whatever order the files were created in.
    size_t previous = output.find("listing .:");
    ASSERT_NE(previous, std::string::npos) << output;
    for (const std::string name : {" apple:", " banana:", " cherry:", " fig:", " kiwi:", " mango:"}) {
        const size_t position = output.find(name, previous);
        ASSERT_NE(position, std::string::npos) << name << " out of order in\n" << output;
        previous = position;
    }
}

// Must show: `date` identical across 20 runs.
TEST(Determinism, DateIsIdenticalAcross20Runs) {
    const std::string output = expect_identical_hermit_runs({"date"});
    EXPECT_TRUE(contains(output, "2000")) << output;
}

// Must show: a python one-liner printing random.random(), time.time(), os.getpid() and id(object()).
TEST(Determinism, PythonOneLinerIsIdenticalAcross20Runs) {
    if (std::system("command -v python3 >/dev/null") != 0) {
        GTEST_SKIP() << "python3 is not installed (scripts/install-deps.sh installs it)";
    }
    const std::string output = expect_identical_hermit_runs(
        {"python3", "-c",
         "import random,time,os; print(random.random(), time.time(), os.getpid(), id(object()))"});
    EXPECT_TRUE(contains(output, " 946684800.")) << output;
}

// Must show: the 4-thread racing guest of the tracer tests completes identically 20/20.
TEST(Determinism, RacingFourThreadGuestIsIdenticalAcross20Runs) {
    const std::string output = expect_identical_hermit_runs({guest_path("tracer_threads")});
    EXPECT_EQ(output, "total=10000 finished=4\n");
}

// Without a PMU nothing preempts a thread that spins without syscalls: hermit must say so, once, naming the
// thread (the guest never ends under hermit; the test ends it).
TEST(Determinism, SpinningThreadIsReportedOnce) {
    if (tracer::virt::probe_branch_counter()) {
        GTEST_SKIP() << "this host has a retired-branch counter; preemption by the PMU is not implemented, "
                        "so there is no PMU behaviour to test, and the no-PMU report is tested on hosts "
                        "without one";
    }
    const ProcessResult native = run_process({guest_path("determinism_spin")});
    ASSERT_EQ(native.exit_status, 0) << native.stderr_text;
    const ProcessResult spinning = hermit_run({guest_path("determinism_spin")}, {}, 6);
    const std::string report = "thread 1 spins without syscalls";
    const size_t first = spinning.stderr_text.find(report);
    ASSERT_NE(first, std::string::npos) << spinning.stderr_text;
    EXPECT_EQ(spinning.stderr_text.find(report, first + 1), std::string::npos) << spinning.stderr_text;
}

} // namespace
} // namespace hermit::testing
