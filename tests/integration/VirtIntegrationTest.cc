// Runs real guests under the built hermit and checks that what the Virtualizer controls (time, randomness,
// host facts, file metadata) is identical across runs and follows --seed and --epoch.

#include "HermitProcess.h"
#include "tracer/virt/HostProbe.h"

#include <gtest/gtest.h>

#include <sys/stat.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

namespace hermit::testing {
namespace {

ProcessResult hermit_run(const std::vector<std::string>& options, const std::vector<std::string>& command) {
    std::vector<std::string> argv = {hermit_binary(), "run"};
    argv.insert(argv.end(), options.begin(), options.end());
    argv.push_back("--");
    argv.insert(argv.end(), command.begin(), command.end());
    return run_process(argv, "", 120);
}

// `hermit --log=debug run -- command`: its log ends with the run's ptrace stops and notifications.
ProcessResult counted_run(const std::vector<std::string>& command) {
    std::vector<std::string> argv = {hermit_binary(), "--log=debug", "run", "--"};
    argv.insert(argv.end(), command.begin(), command.end());
    return run_process(argv, "", 120);
}

// counted_run of the guest `name` with `few`, then with `many` as its argument, both expected to succeed.
std::pair<ProcessResult, ProcessResult> counted_runs(const std::string& name, const std::string& few,
                                                     const std::string& many) {
    const std::string guest = guest_path(name);
    std::pair<ProcessResult, ProcessResult> runs = {counted_run({guest, few}), counted_run({guest, many})};
    EXPECT_EQ(runs.first.exit_status, 0) << runs.first.stdout_text << runs.first.stderr_text;
    EXPECT_EQ(runs.second.exit_status, 0) << runs.second.stdout_text << runs.second.stderr_text;
    return runs;
}

std::string line_of(const std::string& text, const std::string& key) {
    const size_t start = text.find("\n" + key + " ");
    if (start == std::string::npos) {
        return "";
    }
    return text.substr(start + 1, text.find('\n', start + 1) - start - 1);
}

TEST(VirtIntegrationTest, VirtTimeGuestIsIdenticalAcrossRunsAndDiffersNatively) {
    const std::vector<std::string> guest = {guest_path("virt_time")};
    const ProcessResult native_a = run_process(guest);
    const ProcessResult native_b = run_process(guest);
    ASSERT_EQ(native_a.exit_status, 0) << native_a.stderr_text;
    EXPECT_NE(native_a.stdout_text, native_b.stdout_text)
        << "the guest reads nothing nondeterministic natively";

    const ProcessResult first = hermit_run({}, guest);
    ASSERT_EQ(first.exit_status, 0) << first.stderr_text;
    for (int run = 0; run < 4; ++run) {
        const ProcessResult again = hermit_run({}, guest);
        ASSERT_EQ(again.exit_status, 0) << again.stderr_text;
        EXPECT_EQ(again.stdout_text, first.stdout_text) << "run " << run + 2 << " differs";
    }
    EXPECT_NE(first.stdout_text.find("realtime 946684800."), std::string::npos) << first.stdout_text;
    EXPECT_NE(first.stdout_text.find("nodename hermit release 5.15.0-hermit"), std::string::npos);
    EXPECT_NE(first.stdout_text.find("affinity 2\n"), std::string::npos);
    // The guest's own program is an input: its real modification time, as natively.
    struct stat program {};
    ASSERT_EQ(stat(guest.front().c_str(), &program), 0);
    EXPECT_NE(first.stdout_text.find("stat_mtime " + std::to_string(program.st_mtime) + " "),
              std::string::npos)
        << first.stdout_text;
}

TEST(VirtIntegrationTest, CpuidAnswersFromTheFixedTable) {
    if (!tracer::virt::probe_cpuid_faulting()) {
        GTEST_SKIP()
            << "cpuid does not fault on this host after arch_prctl(ARCH_SET_CPUID): hermit warns and "
               "the guest sees the real CPUID";
    }
    // The kernel turns CPUID faulting off at every exec: the guest's first program, a program exec'd by it
    // in the same process, and one exec'd in a forked child must all see the fixed table.
    const std::string guest = guest_path("virt_time");
    std::string first_line;
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{guest}, {"sh", "-c", "exec " + guest}, {"sh", "-c", guest + "; true"}}) {
        const ProcessResult run = hermit_run({}, command);
        ASSERT_EQ(run.exit_status, 0) << run.stderr_text;
        const std::string line = line_of(run.stdout_text, "cpuid1_ecx");
        ASSERT_FALSE(line.empty()) << run.stdout_text;
        const unsigned long leaf1_ecx = std::stoul(line.substr(line.find(' ') + 1), nullptr, 16);
        EXPECT_EQ(leaf1_ecx & (3UL << 30), 0UL)
            << "RDRAND (bit 30) and the hypervisor bit (31) are masked: " << line << " (" << command.back()
            << ")";
        if (first_line.empty()) {
            first_line = line;
        }
        EXPECT_EQ(line, first_line) << command.back();
    }
}

TEST(VirtIntegrationTest, SeedChangesOnlyTheRandomValues) {
    const std::vector<std::string> guest = {guest_path("virt_time")};
    const ProcessResult seed1 = hermit_run({"--seed=1"}, guest);
    const ProcessResult seed2 = hermit_run({"--seed=2"}, guest);
    ASSERT_EQ(seed1.exit_status, 0) << seed1.stderr_text;
    ASSERT_EQ(seed2.exit_status, 0) << seed2.stderr_text;
    for (const char* key : {"getrandom", "urandom", "at_random"}) {
        EXPECT_NE(line_of(seed1.stdout_text, key), line_of(seed2.stdout_text, key)) << key;
        EXPECT_FALSE(line_of(seed1.stdout_text, key).empty()) << key;
    }
    EXPECT_EQ(line_of(seed1.stdout_text, "realtime"), line_of(seed2.stdout_text, "realtime"));
}

TEST(VirtIntegrationTest, UrandomReadsFollowTheSeed) {
    const std::vector<std::string> od = {"od", "-An", "-N8", "-tx1", "/dev/urandom"};
    const ProcessResult a = hermit_run({}, od);
    const ProcessResult b = hermit_run({}, od);
    const ProcessResult other = hermit_run({"--seed=2"}, od);
    ASSERT_EQ(a.exit_status, 0) << a.stderr_text;
    EXPECT_EQ(a.stdout_text, b.stdout_text);
    EXPECT_NE(a.stdout_text, other.stdout_text);
}

TEST(VirtIntegrationTest, UrandomOpensReadMegabytesAndDifferFromEachOther) {
    // dd reads 3 MiB in one go; the next two opens must not repeat each other's bytes.
    const ProcessResult run = hermit_run(
        {}, {"sh", "-c",
             "dd if=/dev/urandom bs=1M count=3 2>/dev/null | wc -c; od -An -N16 -tx1 /dev/urandom; "
             "od -An -N16 -tx1 /dev/random"});
    ASSERT_EQ(run.exit_status, 0) << run.stderr_text;
    const size_t first_line = run.stdout_text.find('\n');
    ASSERT_NE(first_line, std::string::npos) << run.stdout_text;
    EXPECT_EQ(run.stdout_text.substr(0, first_line), "3145728");
    const size_t second_line = run.stdout_text.find('\n', first_line + 1);
    const std::string urandom = run.stdout_text.substr(first_line + 1, second_line - first_line - 1);
    const std::string random = run.stdout_text.substr(second_line + 1);
    EXPECT_FALSE(urandom.empty());
    EXPECT_EQ(random.find(urandom), std::string::npos) << run.stdout_text;
}

TEST(VirtIntegrationTest, UrandomOpensCostNoPtraceStop) {
    // With namespaces the random device file is mounted over /dev/urandom: hermit refreshes it when the
    // open is notified, and the kernel runs the open. Without notifications, one stop at its entry.
    const auto [once, often] = counted_runs("replay_urandom", "1", "101");
    const bool notified = notifications(once) > 0;
    EXPECT_EQ(ptrace_stops(often) - ptrace_stops(once), notified ? 0 : 100) << often.stderr_text;
    EXPECT_EQ(notifications(often) - notifications(once), notified ? 100 : 0) << often.stderr_text;
    const ProcessResult again = hermit_run({}, {guest_path("replay_urandom"), "101"});
    EXPECT_EQ(again.stdout_text, often.stdout_text);
}

// A read-only open of a file the Virtualizer does not replace is a notification the kernel then runs:
// only the opens of generated files (/proc/cpuinfo here) still stop to be redirected.
TEST(VirtIntegrationTest, ReadOnlyOpensOfOrdinaryFilesCostNoPtraceStop) {
    std::vector<std::string> cat = {hermit_binary(), "--log=debug", "run", "--", "cat", "/proc/cpuinfo"};
    const ProcessResult once = run_process(cat);
    cat.insert(cat.end(), 100, "/etc/passwd");
    const ProcessResult often = run_process(cat);
    ASSERT_EQ(once.exit_status, 0) << once.stderr_text;
    ASSERT_EQ(often.exit_status, 0) << often.stderr_text;
    EXPECT_NE(once.stdout_text.find("hermit virtual CPU"), std::string::npos) << once.stdout_text;
    if (notifications(once) == 0) {
        GTEST_SKIP() << "no seccomp user notifications (Linux before 5.19): opens cost a ptrace stop each";
    }
    EXPECT_EQ(ptrace_stops(often), ptrace_stops(once)) << often.stderr_text;
    EXPECT_GE(notifications(often) - notifications(once), 100) << often.stderr_text;
}

TEST(VirtIntegrationTest, VdsoClockReadsCostNoStopAndStillAdvanceTheVirtualClock) {
    const auto [none, many] = counted_runs("virt_clock_spin", "0", "5000");
    EXPECT_EQ(ptrace_stops(many), ptrace_stops(none)) << many.stderr_text;
    // Each read advances the clock by one event step (1 us), as a trapped read did; a sleep shows at once.
    EXPECT_NE(many.stdout_text.find("5000 calls, then 999 spins for 1 ms\n"), std::string::npos)
        << many.stdout_text;
    EXPECT_NE(many.stdout_text.find("invalid clock -22\nslept 2 s or more\n"), std::string::npos);
    EXPECT_EQ(hermit_run({}, {guest_path("virt_clock_spin"), "5000"}).stdout_text, many.stdout_text);
}

// clock_gettime, gettimeofday, time, getrandom, uname, sysinfo, sched_getaffinity, getcpu, times and
// getrusage as raw syscalls are answered from seccomp notifications: 100 rounds of each add no ptrace stop,
// and the answers are the Virtualizer's, the same in every run.
TEST(VirtIntegrationTest, HostAndClockQuestionsCostNoPtraceStop) {
    const auto [none, many] = counted_runs("virt_questions", "0", "100");
    EXPECT_NE(many.stdout_text.find("100 rounds: realtime 946684800."), std::string::npos)
        << many.stdout_text;
    EXPECT_NE(many.stdout_text.find("nodename hermit procs 1 affinity 3 cpu 0 node 0\n"), std::string::npos)
        << many.stdout_text;
    EXPECT_EQ(hermit_run({}, {guest_path("virt_questions"), "100"}).stdout_text, many.stdout_text);
    if (notifications(none) == 0) {
        GTEST_SKIP()
            << "no seccomp user notifications (Linux before 5.19): each question costs a ptrace stop";
    }
    EXPECT_EQ(ptrace_stops(many), ptrace_stops(none)) << many.stderr_text;
}

// A plain run answers opens and stats from notifications, --verify (whose event sinks need exit stops)
// stops at opens: either way the guest then reads the same vDSO clock.
TEST(VirtIntegrationTest, RunAndVerifyShowTheGuestTheSameClock) {
    const std::vector<std::string> guest = {"sh", "-c", "cat /etc/passwd >/dev/null; date +%s.%N"};
    const ProcessResult run = hermit_run({}, guest);
    const ProcessResult verified = hermit_run({"--verify"}, guest);
    ASSERT_EQ(run.exit_status, 0) << run.stderr_text;
    ASSERT_EQ(verified.exit_status, 0) << verified.stderr_text;
    EXPECT_NE(run.stdout_text.find("946684800."), std::string::npos) << run.stdout_text;
    EXPECT_EQ(run.stdout_text, verified.stdout_text);
}

TEST(VirtIntegrationTest, DateFollowsTheEpoch) {
    const ProcessResult a = hermit_run({}, {"date", "-u"});
    const ProcessResult b = hermit_run({}, {"date", "-u"});
    ASSERT_EQ(a.exit_status, 0) << a.stderr_text;
    EXPECT_EQ(a.stdout_text, b.stdout_text);
    EXPECT_NE(a.stdout_text.find("Sat Jan  1 00:00:00 UTC 2000"), std::string::npos) << a.stdout_text;
    const ProcessResult later = hermit_run({"--epoch=2020-01-01T00:00:00Z"}, {"date", "-u", "+%F"});
    EXPECT_NE(later.stdout_text.find("2020-01-01"), std::string::npos) << later.stdout_text;
    const ProcessResult bad = hermit_run({"--epoch=yesterday"}, {"date"});
    EXPECT_EQ(bad.exit_status, 2);
    EXPECT_NE(bad.stderr_text.find("E022"), std::string::npos) << bad.stderr_text;
}

TEST(VirtIntegrationTest, SleepReturnsAtOnceAndAdvancesTheClock) {
    // A 10 s sleep must not take 10 s: the timeout of 5 s kills it otherwise (exit_status -1).
    const ProcessResult sleep = run_process({hermit_binary(), "run", "--", "sleep", "10"}, "", 5);
    EXPECT_EQ(sleep.exit_status, 0) << sleep.stderr_text;
    const ProcessResult shell = hermit_run({}, {"sh", "-c", "date -u +%s; sleep 7; date -u +%s"});
    ASSERT_EQ(shell.exit_status, 0) << shell.stderr_text;
    EXPECT_NE(shell.stdout_text.find("946684800\n946684807\n"), std::string::npos) << shell.stdout_text;
}

TEST(VirtIntegrationTest, PythonRandomTimePidAndAddressesAreIdentical) {
    const std::vector<std::string> python = {
        "python3", "-c",
        "import random,time,os; print(random.random(), time.time(), os.getpid(), id(object()))"};
    const ProcessResult a = hermit_run({}, python);
    const ProcessResult b = hermit_run({}, python);
    ASSERT_EQ(a.exit_status, 0) << a.stderr_text;
    EXPECT_EQ(a.stdout_text, b.stdout_text);
}

// The lines of `text` without those holding fields hermit virtualizes.
std::string without_virtual_lines(const std::string& text) {
    std::string kept;
    for (size_t start = 0; start < text.size();) {
        const size_t end = std::min(text.find('\n', start), text.size());
        const std::string line = text.substr(start, end - start);
        if (line.find(" virtual: ") == std::string::npos) {
            kept += line + "\n";
        }
        start = end + 1;
    }
    return kept;
}

class ScratchDirectoryTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-virt-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }
    std::string directory_;
};

class StatFlavours : public ScratchDirectoryTest {};
class DirectoryListing : public ScratchDirectoryTest {};

class FileContext : public ScratchDirectoryTest {};

// hermit answers stats and opens from the tracer, finding names from the guest thread's working directory,
// which it keeps between syscalls: each change (chdir, fchdir, a thread's chdir, a thread's own after
// unshare(CLONE_FS)) shows at the next syscall, and a child's stays the child's.
TEST_F(FileContext, WorkingDirectoryChangesShowAtTheNextSyscall) {
    std::filesystem::create_directory(directory_ + "/native");
    std::filesystem::create_directory(directory_ + "/hermit");
    const ProcessResult native = run_process({guest_path("virt_file_context"), directory_ + "/native"});
    ASSERT_EQ(native.exit_status, 0) << native.stderr_text;
    const ProcessResult run = hermit_run({}, {guest_path("virt_file_context"), directory_ + "/hermit"});
    ASSERT_EQ(run.exit_status, 0) << run.stderr_text;
    EXPECT_EQ(run.stdout_text, native.stdout_text);
    for (const char* line :
         {"after chdir b: stat of only-b: found\n", "after fchdir a: marker of a\n",
          "after a thread's chdir b: marker of b\n", "after the child's chdir a: marker of b\n",
          "in the unshared thread: marker of a\n", "after the unshared thread's chdir a: marker of b\n"}) {
        EXPECT_NE(native.stdout_text.find(line), std::string::npos) << line << native.stdout_text;
    }
}

TEST_F(StatFlavours, AreIdenticalAcrossRunsAndMatchTheKernelOutsideVirtualizedFields) {
    const std::vector<std::string> guest = {guest_path("virt_stat"), directory_};
    const ProcessResult native = run_process(guest);
    ASSERT_EQ(native.exit_status, 0) << native.stderr_text;
    const ProcessResult first = hermit_run({}, guest);
    ASSERT_EQ(first.exit_status, 0) << first.stderr_text;
    for (int run = 0; run < 3; ++run) {
        const ProcessResult again = hermit_run({}, guest);
        ASSERT_EQ(again.exit_status, 0) << again.stderr_text;
        EXPECT_EQ(again.stdout_text, first.stdout_text) << "run " << run + 2 << " differs";
    }
    // Results, errors, modes, sizes, link counts and owners are the kernel's; so are the statx masks.
    EXPECT_EQ(without_virtual_lines(first.stdout_text), without_virtual_lines(native.stdout_text));
    EXPECT_NE(first.stdout_text, native.stdout_text);
    // Answered in the tracer (relative, descriptor) or by the kernel (".."): one virtual inode per file.
    EXPECT_NE(first.stdout_text.find("same inode through ..: yes"), std::string::npos) << first.stdout_text;
    EXPECT_NE(first.stdout_text.find("same inode by descriptor: yes"), std::string::npos);
    // The guest made the file: virtual times (identical above), the same in statx.
    std::smatch stat_line;
    ASSERT_TRUE(std::regex_search(first.stdout_text, stat_line,
                                  std::regex("stat relative virtual: dev 42 ino 4 mtime (\\d+)\\.\\d{9} ")))
        << first.stdout_text;
    EXPECT_NE(first.stdout_text.find("statx virtual: dev 0:42 ino 4 mtime " + stat_line[1].str() + " "),
              std::string::npos)
        << first.stdout_text;
}

TEST_F(StatFlavours, StatOfAFileOrOfAMissingNameCostsNoPtraceStop) {
    const std::string guest = guest_path("virt_stat");
    std::vector<std::string> debug = {hermit_binary(), "--log=debug", "run", "--", guest, directory_};
    const ProcessResult without = run_process(debug);
    debug.push_back("200");
    const ProcessResult with = run_process(debug);
    ASSERT_EQ(without.exit_status, 0) << without.stderr_text;
    ASSERT_EQ(with.exit_status, 0) << with.stderr_text;
    if (notifications(without) == 0) {
        GTEST_SKIP() << "no seccomp user notifications (Linux before 5.19): stats cost a ptrace stop each";
    }
    // Answered from a seccomp notification; at its entry stop it would cost one, rewritten at its exit two.
    // A missing name (ENOENT on a walk without symlinks) is answered the same way, and so is a statx with
    // AT_NO_AUTOMOUNT, which `ls -l` makes of every name.
    EXPECT_EQ(ptrace_stops(with), ptrace_stops(without)) << with.stderr_text;
    EXPECT_EQ(notifications(with) - notifications(without), 600) << with.stderr_text;
}

std::vector<std::string> lines_starting(const std::string& text, const std::string& prefix, bool starting) {
    std::vector<std::string> kept;
    for (size_t start = 0, end; start < text.size(); start = end + 1) {
        end = text.find('\n', start);
        const std::string line = text.substr(start, end - start);
        if (line.starts_with(prefix) == starting) {
            kept.push_back(line);
        }
    }
    return kept;
}

// getdents64 returns the kernel's records, each returned chunk sorted by name with virtual inode numbers:
// the same in every run, where natively the order is the file system's. Its failures are the kernel's.
TEST_F(DirectoryListing, ChunksAreSortedAndIdenticalAcrossRunsWithTheKernelsFailures) {
    const std::vector<std::string> guest = {guest_path("virt_listing"), directory_, "1", "raw"};
    const ProcessResult native = run_process(guest);
    const ProcessResult first = hermit_run({}, guest);
    const ProcessResult second = hermit_run({}, guest);
    ASSERT_EQ(native.exit_status, 0) << native.stderr_text;
    ASSERT_EQ(first.exit_status, 0) << first.stderr_text;
    EXPECT_EQ(first.stdout_text, second.stdout_text);
    EXPECT_EQ(lines_starting(first.stdout_text, "chunk:", false),
              lines_starting(native.stdout_text, "chunk:", false));
    EXPECT_NE(first.stdout_text.find("42 names in 5 chunks"), std::string::npos) << first.stdout_text;
    EXPECT_NE(first.stdout_text.find("after the failures: from the start"), std::string::npos);
    const std::vector<std::string> chunks = lines_starting(first.stdout_text, "chunk:", true);
    ASSERT_EQ(chunks.size(), 5u) << first.stdout_text;
    for (const std::string& chunk : chunks) {
        std::vector<std::string> names;
        for (size_t at = chunk.find(' '); at != std::string::npos; at = chunk.find(' ', at + 1)) {
            names.push_back(chunk.substr(at + 1, chunk.find(':', at) - at - 1));
        }
        EXPECT_TRUE(std::is_sorted(names.begin(), names.end())) << chunk;
    }
}

TEST_F(DirectoryListing, ReadsCostNoPtraceStop) {
    const std::string guest = guest_path("virt_listing");
    const ProcessResult once = counted_run({guest, directory_, "1"});
    const ProcessResult often = counted_run({guest, directory_, "101"});
    ASSERT_EQ(once.exit_status, 0) << once.stderr_text;
    ASSERT_EQ(often.exit_status, 0) << often.stderr_text;
    EXPECT_EQ(often.stdout_text, once.stdout_text);
    if (notifications(once) == 0) {
        GTEST_SKIP()
            << "no seccomp user notifications (Linux before 5.19): getdents64 costs two ptrace stops";
    }
    // Each listing is 5 chunks and the empty read at the end: done by hermit on the guest's descriptor from
    // the notification, where the kernel's call and its exit stop would cost two stops.
    EXPECT_EQ(ptrace_stops(often), ptrace_stops(once)) << often.stderr_text;
    EXPECT_GE(notifications(often) - notifications(once), 600) << often.stderr_text;
}

} // namespace
} // namespace hermit::testing
