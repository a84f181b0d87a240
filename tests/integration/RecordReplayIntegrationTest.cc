// Record and replay through the real hermit binary: `hermit record start` then `hermit replay --autopilot`
// must reproduce the guest's output and exit status, also after the file it read is gone, and a damaged
// recording must be refused with the formats error.

#include "HermitProcess.h"
#include "formats/Recording.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

namespace hermit::testing {
namespace {

class RecordReplayTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-record-replay-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
        data_dir_ = directory_ / "recordings";
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    ProcessResult hermit(std::vector<std::string> arguments, const std::string& stdin_text = "") {
        arguments.insert(arguments.begin(), hermit_binary());
        return run_process(arguments, stdin_text, 120, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    }

    std::string record_and_replay(const std::vector<std::string>& command);
    // `input`'s stem names the recording.
    void
    expect_replay_reads_the_recorded_input(const std::filesystem::path& input,
                                           const std::function<void(const std::filesystem::path&)>& change);
    // A guest that takes a scratch directory and a repeat count, run natively, then recorded and replayed;
    // the replay must leave the (emptied) scratch directory alone.
    struct ScratchRuns {
        ProcessResult native;
        long recording_stops = -1;         // ptrace stops of the recording
        long recording_notifications = -1; // and its seccomp notifications
        long replay_notifications = -1;
    };
    ScratchRuns run_record_and_replay_in_scratch(const std::string& name, const std::string& guest,
                                                 const std::string& repeats);
    ProcessResult record_with_outside_signal(const std::string& mode);
    // Writes recording `from` again as `to`, with `meta`, and byte `byte` of its first output changed to
    // 'O'; false when the recording has no output that long.
    bool copy_with_changed_output(const std::string& from, const std::string& to, const RecordingMeta& meta,
                                  size_t byte) {
        RecordingReader original(data_dir_ / from);
        RecordingWriter changed(data_dir_ / to, meta);
        bool changed_output = false;
        for (Event event : original.read_all()) {
            if (auto* output = std::get_if<StdioEvent>(&event.payload);
                output != nullptr && !changed_output && output->data.size() > byte) {
                output->data[byte] = 'O';
                changed_output = true;
            }
            changed.append(std::move(event));
        }
        changed.finish(original.meta().exit_status, original.meta().guest_duration_ns);
        return changed_output;
    }
    // The events of recording `id` marked `[buffered]` in `hermit record dump` (tracer/SyscallBuffer.h).
    size_t buffered_calls(const std::string& id) {
        const ProcessResult dump = hermit({"record", "dump", id});
        EXPECT_EQ(dump.exit_status, 0) << dump.stderr_text;
        size_t count = 0;
        for (size_t at = dump.stdout_text.find("[buffered]"); at != std::string::npos;
             at = dump.stdout_text.find("[buffered]", at + 1)) {
            ++count;
        }
        return count;
    }

    std::filesystem::path directory_;
    std::filesystem::path data_dir_;
};

TEST_F(RecordReplayTest, ReplayReproducesTimeRandomFileAndStdin) {
    const auto input = directory_ / "input.txt";
    std::ofstream(input) << "contents of the input file";
    ProcessResult recorded =
        hermit({"record", "start", "--", guest_path("replay_inputs"), input.string()}, "line from stdin\n");
    ASSERT_EQ(recorded.exit_status, 7) << recorded.stderr_text;
    EXPECT_NE(recorded.stdout_text.find("stdin 16 bytes: line from stdin"), std::string::npos);
    EXPECT_NE(recorded.stdout_text.find("contents of the input file"), std::string::npos);
    EXPECT_NE(recorded.stderr_text.find("hermit: recorded replay_inputs-1 ("), std::string::npos);

    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 7) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    EXPECT_NE(replayed.stderr_text.find("replay_inputs done"), std::string::npos);
}

TEST_F(RecordReplayTest, ReplayReturnsTheRecordedFileMetadataAfterTheFilesChanged) {
    // Most stats are answered by the Virtualizer in the tracer: the recording must still keep their results.
    const auto tree = directory_ / "tree";
    std::filesystem::create_directory(tree);
    ProcessResult recorded = hermit({"record", "start", "--", guest_path("virt_stat"), tree.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    std::filesystem::remove(tree / "f");
    std::ofstream(tree / "d" / "g") << "longer than before";

    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

TEST_F(RecordReplayTest, ReplayReproducesTheVdsoClockReads) {
    // The vDSO clock page is not recorded: a replay computes the same values again.
    ProcessResult recorded = hermit({"record", "start", "--", guest_path("virt_clock_spin"), "300"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

// A divergence names what probably differs from the recording's host: here its kernel and CPU count (the
// recording is rewritten as if made elsewhere, and one recorded result changed so that the replay diverges).
TEST_F(RecordReplayTest, ADivergenceNamesWhatDiffersFromTheRecordingsHost) {
    const ProcessResult recorded = hermit({"record", "start", "--", "sh", "-c", "echo one; echo two"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    RecordingMeta meta = RecordingReader(data_dir_ / "sh-1").meta();
    meta.host.kernel_release = "4.19.0-elsewhere";
    meta.host.cpu_count = 96;
    ASSERT_TRUE(copy_with_changed_output("sh-1", "moved-1", meta, 0));
    const ProcessResult replayed = hermit({"replay", "--autopilot", "moved-1"});
    EXPECT_EQ(replayed.exit_status, 4) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("E040"), std::string::npos) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("what probably differs: it was recorded on another host (Linux "
                                        "4.19.0-elsewhere, 96 CPUs"),
              std::string::npos)
        << replayed.stderr_text;
    EXPECT_EQ(hermit({"replay", "--autopilot", "sh-1"}).stderr_text.find("probably differs"),
              std::string::npos);
}

// rr's spellings work as hermit's own: record ls, replay -a.
TEST_F(RecordReplayTest, RrSpellingsWork) {
    ASSERT_EQ(hermit({"record", "start", "--", "sh", "-c", "echo rr"}).exit_status, 0);
    EXPECT_NE(hermit({"record", "ls"}).stdout_text.find("sh-1"), std::string::npos);
    const ProcessResult replayed = hermit({"replay", "-a", "sh-1"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "rr\n");
}

// `record list` reads every recording's event stream (checksums only) and flags a damaged one.
TEST_F(RecordReplayTest, RecordListFlagsADamagedEventStream) {
    ASSERT_EQ(hermit({"record", "start", "--", "sh", "-c", "seq 1 1000 | wc -l"}).exit_status, 0);
    const std::filesystem::path events = data_dir_ / "sh-1" / "events.hrec";
    std::string bytes;
    {
        std::ifstream in(events, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    ASSERT_GT(bytes.size(), 100u);
    EXPECT_EQ(hermit({"record", "list"}).stdout_text.find("DAMAGED"), std::string::npos);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 1);
    std::ofstream(events, std::ios::binary | std::ios::trunc) << bytes;
    const ProcessResult listed = hermit({"record", "list"});
    EXPECT_EQ(listed.exit_status, 0) << listed.stderr_text;
    EXPECT_NE(listed.stdout_text.find("DAMAGED"), std::string::npos) << listed.stdout_text;
    EXPECT_NE(listed.stdout_text.find("E031"), std::string::npos) << listed.stdout_text;
    EXPECT_NE(hermit({"record", "list", "--json"}).stdout_text.find("\"problem\""), std::string::npos);
}

// Syscall numbers the kernel lacks fail with ENOSYS when recorded and when replayed; 1000, the number the
// syscall buffer library registers its buffer with, too when the guest itself calls it.
TEST_F(RecordReplayTest, UnknownSyscallNumbersFailWithEnosysRecordedAndReplayed) {
    ProcessResult recorded = hermit({"record", "start", "--", guest_path("tracer_unknown_syscalls")});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, run_process({guest_path("tracer_unknown_syscalls")}).stdout_text);
    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

// Records replay_inputs reading a file that says "as recorded", lets `change` alter the file, and checks that
// the replay still reads what was recorded.
void RecordReplayTest::expect_replay_reads_the_recorded_input(
    const std::filesystem::path& input, const std::function<void(const std::filesystem::path&)>& change) {
    const std::string name = input.stem();
    std::ofstream(input) << "as recorded";
    ProcessResult recorded =
        hermit({"record", "start", "--name=" + name, "--", guest_path("replay_inputs"), input.string()});
    ASSERT_EQ(recorded.exit_status, 7) << recorded.stderr_text;
    change(input);

    ProcessResult replayed = hermit({"replay", name + "-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 7) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    EXPECT_NE(replayed.stdout_text.find("as recorded"), std::string::npos);
}

TEST_F(RecordReplayTest, ReplaySucceedsAfterTheReadFileIsDeleted) {
    expect_replay_reads_the_recorded_input(
        directory_ / "gone.txt", [](const std::filesystem::path& input) { std::filesystem::remove(input); });
}

// /dev/shm is a tmpfs of ordinary files, unlike the rest of /dev: what the guest read there is recorded.
TEST_F(RecordReplayTest, ReplaySucceedsAfterAReadFileInDevShmIsDeleted) {
    char pattern[] = "/dev/shm/hermit-record-replay-XXXXXX";
    if (mkdtemp(pattern) == nullptr) {
        GTEST_SKIP() << "this host has no writable /dev/shm";
    }
    struct RemovedAtExit {
        std::filesystem::path path;
        ~RemovedAtExit() { std::filesystem::remove_all(path); }
    } shared_memory_directory{pattern};
    expect_replay_reads_the_recorded_input(
        shared_memory_directory.path / "shm.txt",
        [](const std::filesystem::path& input) { std::filesystem::remove(input); });
}

// A changed original (same name, other bytes) is replaced by the recorded copy, found by its SHA-256.
TEST_F(RecordReplayTest, ReplayReadsTheRecordedCopyOfAChangedFile) {
    expect_replay_reads_the_recorded_input(
        directory_ / "changed.txt",
        [](const std::filesystem::path& input) { std::ofstream(input) << "changed afterwards"; });
}

// A copy the replay needs (its original is gone) that no longer matches its digest stops the replay with
// the catalogued error instead of feeding the guest other bytes.
TEST_F(RecordReplayTest, DamagedFileCopyIsRefusedWithE031) {
    const auto input = directory_ / "copied.txt";
    std::ofstream(input) << "copied bytes";
    ASSERT_EQ(hermit({"record", "start", "--name=damaged", "--", guest_path("replay_inputs"), input.string()})
                  .exit_status,
              7);
    std::filesystem::remove(input);
    const auto pack = data_dir_ / "damaged-1" / "files.pack";
    std::string copies;
    {
        std::ifstream in(pack, std::ios::binary);
        copies.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    const size_t at = copies.find("copied bytes");
    ASSERT_NE(at, std::string::npos);
    copies[at] ^= 0x20;
    std::ofstream(pack, std::ios::binary | std::ios::trunc) << copies;

    ProcessResult replayed = hermit({"replay", "damaged-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 3) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("E031"), std::string::npos) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("does not match its SHA-256"), std::string::npos)
        << replayed.stderr_text;
}

// Records `command` and replays it; returns the recording's stdout after checking the replay matched it.
std::string RecordReplayTest::record_and_replay(const std::vector<std::string>& command) {
    std::vector<std::string> arguments = {"record", "start", "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    ProcessResult recorded = hermit(arguments);
    EXPECT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    return recorded.stdout_text;
}

TEST_F(RecordReplayTest, MultithreadedGuestsReplayTheirSchedule) {
    EXPECT_EQ(record_and_replay({guest_path("replay_threads")}).rfind("order ", 0), 0u);
    record_and_replay({guest_path("tracer_futex_pingpong")});
    record_and_replay({guest_path("tracer_threads")});
}

TEST_F(RecordReplayTest, AlarmsAndTimedWaitsReplay) {
    record_and_replay({guest_path("tracer_alarm")});
    record_and_replay({guest_path("tracer_timed_wait")});
    record_and_replay({guest_path("tracer_sleep_signals")});
}

TEST_F(RecordReplayTest, PipelinesReplay) {
    EXPECT_EQ(record_and_replay({"sh", "-c", "seq 1 1000 | sort -rn | head -2"}), "1000\n999\n");
    record_and_replay({"sh", "-c", "seq 1 3000 | tr 1 x | wc -c; echo done"});
}

TEST_F(RecordReplayTest, ReplayLeavesTheUsersFilesAlone) {
    const auto file = directory_ / "out.txt";
    const auto tool = directory_ / "tool";
    const std::string script = "cd " + directory_.string() +
                               " && echo one > out.txt && cat out.txt && rm out.txt && echo two > out.txt &&"
                               " cat out.txt && cp /bin/true tool && ./tool && echo ran";
    ProcessResult recorded = hermit({"record", "start", "--", "sh", "-c", script});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "one\ntwo\nran\n");
    std::ofstream(file, std::ios::trunc) << "changed by the user";
    std::filesystem::remove(tool);

    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    std::ifstream stream(file);
    std::string contents((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    EXPECT_EQ(contents, "changed by the user");
    EXPECT_FALSE(std::filesystem::exists(tool));
}

// Number of read syscall events in the output of `hermit record dump`.
size_t read_events_in(const std::string& dump) {
    size_t count = 0;
    for (size_t at = dump.find(" read("); at != std::string::npos; at = dump.find(" read(", at + 1)) {
        count++;
    }
    return count;
}

// Reads and writes of regular files run natively when recorded (the recording copies the files instead) and
// again on replay, on private copies: the replay sees the same bytes after the user changed or removed
// them, and never touches them. The guest's own pipe runs natively too (its replay writes it again), a
// socket pair is trapped, also at a number a regular file had before, and a file at a socket's former
// number runs natively again.
TEST_F(RecordReplayTest, RegularFileIoRunsNativelyAndReplaysFromCopies) {
    const auto input = directory_ / "input.txt";
    const auto scratch = directory_ / "scratch";
    std::filesystem::create_directory(scratch);
    {
        std::ofstream stream(input);
        for (int line = 0; line < 400; line++) {
            stream << "line " << line << "\n";
        }
    }
    ProcessResult recorded = hermit({"record", "start", "--name=files", "--",
                                     guest_path("replay_native_files"), input.string(), scratch.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_NE(recorded.stdout_text.find("input: 437 reads"), std::string::npos) << recorded.stdout_text;
    EXPECT_NE(recorded.stdout_text.find("read back 5: first\npread back 5: FIrst\ncreated again 3: new\n"
                                        "after rename 12: renamed over\n"
                                        "pipe read end at the number the input had: yes\n"
                                        "pipe 16: through the pipe, child 0\n"
                                        "socket 6: socket\n"
                                        "input again at the socket's number: yes, 437 reads, same checksum: "
                                        "yes\n"),
              std::string::npos)
        << recorded.stdout_text;

    // Only the socket's read is an event: not the reads of the input file, also not where the file has
    // the socket's number, which a filter traps from the socket pair on, nor that of the guest's own pipe.
    ProcessResult dump = hermit({"record", "dump", "files-1"});
    ASSERT_EQ(dump.exit_status, 0) << dump.stderr_text;
    EXPECT_EQ(read_events_in(dump.stdout_text), 1u) << dump.stdout_text;
    // The input is copied at its open; shared.tmp, made by an open with O_EXCL, has nothing to copy.
    ProcessResult info = hermit({"record", "info", "files-1"});
    EXPECT_NE(info.stdout_text.find(input.string() + " ("), std::string::npos) << info.stdout_text;
    EXPECT_EQ(info.stdout_text.find("shared.tmp"), std::string::npos) << info.stdout_text;

    std::filesystem::remove(input);
    std::ofstream(scratch / "shared") << "changed by the user";
    ProcessResult replayed = hermit({"replay", "files-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    std::ifstream stream(scratch / "shared");
    std::string contents((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
    EXPECT_EQ(contents, "changed by the user");
}

// A pipe end passed over a Unix socket is trapped from the recvmsg that brought it; a socket that never
// connected leaves nothing trapped, so the file that gets its number is read natively. On replay, where
// recvmsg passes nothing, a stand-in holds the passed number: the next open gets the recorded number.
TEST_F(RecordReplayTest, PassedDescriptorsAreTrappedUnconnectedSocketsAreNot) {
    const auto input = directory_ / "input.txt";
    std::ofstream(input) << std::string(200, 'h');
    ProcessResult recorded = hermit(
        {"record", "start", "--name=passed", "--", guest_path("replay_passed_descriptors"), input.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_NE(recorded.stdout_text.find("passed descriptor read 20: passed over a socket"), std::string::npos)
        << recorded.stdout_text;
    EXPECT_NE(recorded.stdout_text.find("connect -1; file at the socket's number: yes; 25 reads"),
              std::string::npos)
        << recorded.stdout_text;
    EXPECT_NE(recorded.stdout_text.find("opened after it: the next number; closing it: 0"), std::string::npos)
        << recorded.stdout_text;

    ProcessResult dump = hermit({"record", "dump", "passed-1"});
    ASSERT_EQ(dump.exit_status, 0) << dump.stderr_text;
    const size_t reads = read_events_in(dump.stdout_text);
    EXPECT_GE(reads, 1u);                      // the passed pipe's
    EXPECT_LT(reads, 10u) << dump.stdout_text; // not the file's 25

    ProcessResult replayed = hermit({"replay", "passed-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

// Runs `guest` with a new scratch directory directory_/name natively, then records it as `name` (it must
// print what it did natively) and replays it, the scratch directory emptied before each run.
RecordReplayTest::ScratchRuns RecordReplayTest::run_record_and_replay_in_scratch(const std::string& name,
                                                                                 const std::string& guest,
                                                                                 const std::string& repeats) {
    const auto scratch = directory_ / name;
    const std::vector<std::string> command = {guest_path(guest), scratch.string(), repeats};
    auto empty_scratch = [&] {
        std::filesystem::remove_all(scratch);
        std::filesystem::create_directory(scratch);
    };
    empty_scratch();
    ScratchRuns runs{run_process(command, "", 60)};
    EXPECT_EQ(runs.native.exit_status, 0) << runs.native.stderr_text;

    empty_scratch();
    std::vector<std::string> arguments = {"--log=debug", "record", "start", "--name=" + name, "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    ProcessResult recorded = hermit(arguments);
    EXPECT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, runs.native.stdout_text);
    runs.recording_stops = ptrace_stops(recorded);
    runs.recording_notifications = notifications(recorded);
    EXPECT_GE(runs.recording_stops, 0) << recorded.stderr_text;

    empty_scratch();
    ProcessResult replayed = hermit({"--log=debug", "replay", name + "-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    runs.replay_notifications = notifications(replayed);
    EXPECT_TRUE(std::filesystem::is_empty(scratch)) << "the replay changed the scratch directory";
    return runs;
}

// A replay whose guest would write other bytes than the recording's output stops before they are
// written: not one of them reaches the user. (The recording is rewritten with other recorded output, as
// if the guest behaved differently on replay.)
TEST_F(RecordReplayTest, OutputTheRecordingDidNotHaveIsNeverWritten) {
    const std::filesystem::path input = directory_ / "data.txt";
    std::ofstream(input) << "line one\nline two\n";
    const ProcessResult recorded = hermit({"record", "start", "--", "cat", input.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ASSERT_TRUE(
        copy_with_changed_output("cat-1", "changed-1", RecordingReader(data_dir_ / "cat-1").meta(), 5))
        << "\"line One\"";
    const ProcessResult replayed = hermit({"replay", "--autopilot", "changed-1"});
    EXPECT_EQ(replayed.exit_status, 4) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("different bytes from byte 5 on"), std::string::npos)
        << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "") << "no byte of the differing write was shown";
    EXPECT_EQ(hermit({"replay", "--autopilot", "cat-1"}).stdout_text, "line one\nline two\n");
}

TEST_F(RecordReplayTest, OutputToARegularFileIsRecordedCheckedAndReplayedToAnyOutput) {
    const std::filesystem::path input = directory_ / "data.txt";
    std::ofstream(input) << "line one\nline two\n";
    const std::filesystem::path output = directory_ / "out.txt";
    std::ofstream(output) << "before\n";
    // Appended (cat's copy_file_range then fails natively) and truncated (it would copy in the kernel).
    for (const std::string redirect : {">>", ">"}) {
        const ProcessResult recorded =
            run_process({"sh", "-c", "exec \"$0\" record start -- cat \"$1\" " + redirect + " \"$2\"",
                         hermit_binary(), input.string(), output.string()},
                        "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
        ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
        std::ifstream written(output);
        EXPECT_NE(std::string(std::istreambuf_iterator<char>(written), {}).find("line one\nline two\n"),
                  std::string::npos);
        const ProcessResult dump = hermit({"record", "dump", "latest"});
        EXPECT_NE(dump.stdout_text.find("bytes to stdout \"line one"), std::string::npos) << dump.stdout_text;
        // Replayed to a pipe, and to a regular file that the kernel could copy into.
        const ProcessResult replayed = hermit({"replay", "--autopilot", "latest"});
        EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
        EXPECT_EQ(replayed.stdout_text, "line one\nline two\n");
        const std::filesystem::path replay_output = directory_ / "replayed.txt";
        const ProcessResult to_file = run_process(
            {"sh", "-c", "exec \"$0\" replay --autopilot latest > \"$1\"", hermit_binary(), replay_output},
            "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
        EXPECT_EQ(to_file.exit_status, 0) << to_file.stderr_text;
        std::ifstream replayed_file(replay_output);
        EXPECT_EQ(std::string(std::istreambuf_iterator<char>(replayed_file), {}), "line one\nline two\n");
    }
    // What the file got is checked like any output.
    ASSERT_TRUE(
        copy_with_changed_output("cat-2", "changed-1", RecordingReader(data_dir_ / "cat-2").meta(), 5));
    const ProcessResult changed = hermit({"replay", "--autopilot", "changed-1"});
    EXPECT_EQ(changed.exit_status, 4) << changed.stderr_text;
    EXPECT_EQ(changed.stdout_text, "");
}

TEST_F(RecordReplayTest, OutputDiscardedWhenRecordedIsDiscardedByTheReplay) {
    const ProcessResult recorded =
        run_process({"sh", "-c", "exec \"$0\" record start -- sh -c 'echo out; echo err >&2' >/dev/null 2>&1",
                     hermit_binary()},
                    "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    const ProcessResult replayed = hermit({"replay", "--autopilot", "latest"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "");
    EXPECT_EQ(replayed.stderr_text.find("err\n"), std::string::npos) << replayed.stderr_text;
}

// A shell that leaves a sleeping child behind ends the run at once: the kernel kills the rest of the pid
// namespace with its init, and hermit lets the threads it holds (parked in virtual sleeps) die.
TEST_F(RecordReplayTest, AnInitThatLeavesChildrenBehindEndsTheRun) {
    const std::string script = "sleep 100 & python3 -c 'import time; time.sleep(100)' & echo bye; exit 3";
    const ProcessResult run = hermit({"run", "--", "sh", "-c", script});
    EXPECT_EQ(run.exit_status, 3) << run.stderr_text;
    EXPECT_EQ(run.stdout_text, "bye\n");
    const ProcessResult recorded = hermit({"record", "start", "--", "sh", "-c", script});
    EXPECT_EQ(recorded.exit_status, 3) << recorded.stderr_text;
    const ProcessResult replayed = hermit({"replay", "--autopilot", "latest"});
    EXPECT_EQ(replayed.exit_status, 3) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "bye\n");
}

// sendfile, splice and copy_file_range move bytes where no trap sees them: on a socket or hermit's stdout
// they fail (python falls back to send), between regular files and the guest's own pipes they run.
TEST_F(RecordReplayTest, BytesMovedInsideTheKernelAreRecordedAndReplayed) {
    const std::filesystem::path input = directory_ / "data.txt";
    std::ofstream(input) << std::string(3000, 'x');
    const std::string script = R"(
import os, shutil, socket, sys
shutil.copyfile(sys.argv[1], sys.argv[1] + '.copy')
print('copied', os.path.getsize(sys.argv[1] + '.copy'))
a, b = socket.socketpair()
with open(sys.argv[1], 'rb') as f:
    print('sent', a.sendfile(f), len(b.recv(10000)))
r, w = os.pipe()
fd = os.open(sys.argv[1], os.O_RDONLY)
print('spliced', os.splice(fd, w, 100), len(os.read(r, 1000)))
sys.stdout.flush()
try:
    os.sendfile(1, fd, 0, 10)
except OSError as error:
    print('sendfile to stdout:', error.strerror)
)";
    const ProcessResult recorded = hermit({"record", "start", "--", "python3", "-c", script, input.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text,
              "copied 3000\nsent 3000 3000\nspliced 100 100\nsendfile to stdout: Invalid argument\n");
    const ProcessResult replayed = hermit({"replay", "--autopilot", "latest"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

// Environment values and output need not be UTF-8; every JSON hermit writes about them must stay valid.
TEST_F(RecordReplayTest, JsonOfARecordingWithBytesThatAreNotUtf8IsValid) {
    const ProcessResult recorded =
        run_process({hermit_binary(), "record", "start", "--", "printf", "out\\377\\376\\n"}, "", 120,
                    {"HERMIT_DATA_DIR=" + data_dir_.string(), "HERMIT_TEST_BYTES=\xff\xfe"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ASSERT_EQ(recorded.stdout_text, "out\xff\xfe\n");
    const std::filesystem::path exported = directory_ / "trace.json";
    for (const std::vector<std::string>& command :
         {std::vector<std::string>{"record", "info", "--json"},
          {"record", "list", "--json"},
          {"export", "--format=perfetto", "-o", exported.string()}}) {
        const ProcessResult result = hermit(command);
        ASSERT_EQ(result.exit_status, 0) << command[1] << ": " << result.stderr_text;
        std::string text = result.stdout_text;
        if (command[0] == "export") {
            std::ifstream file(exported);
            text.assign(std::istreambuf_iterator<char>(file), {});
        }
        EXPECT_TRUE(nlohmann::json::accept(text)) << command[1];
    }
}

// One flipped bit of an environment value in the metadata would replay another run: it is refused.
TEST_F(RecordReplayTest, ADamagedEnvironmentValueIsRefused) {
    const ProcessResult recorded =
        run_process({hermit_binary(), "record", "start", "--", "sh", "-c", "echo $HERMIT_TEST_VALUE"}, "",
                    120, {"HERMIT_DATA_DIR=" + data_dir_.string(), "HERMIT_TEST_VALUE=recorded"});
    ASSERT_EQ(recorded.stdout_text, "recorded\n") << recorded.stderr_text;
    const std::filesystem::path meta = data_dir_ / "sh-1" / "meta.capnp.bin";
    std::string bytes;
    {
        std::ifstream file(meta, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(file), {});
    }
    const size_t value = bytes.find("HERMIT_TEST_VALUE=recorded");
    ASSERT_NE(value, std::string::npos);
    bytes[value + 18] ^= 0x20; // "Recorded"
    std::ofstream(meta, std::ios::binary | std::ios::trunc) << bytes;
    const ProcessResult replayed = hermit({"replay", "--autopilot", "sh-1"});
    EXPECT_EQ(replayed.exit_status, 3) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("E031"), std::string::npos) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("meta.capnp.bin fails its checksum"), std::string::npos);
    EXPECT_EQ(replayed.stdout_text, "");
}

// A recording of `./show in.txt` made in one directory replays from another, from /, and as a copy of its
// directory, which is known by the copy's name.
TEST_F(RecordReplayTest, ARecordingReplaysFromAnyDirectoryAndWhenCopied) {
    const std::filesystem::path project = directory_ / "project";
    std::filesystem::create_directories(project);
    std::ofstream(project / "show") << "#!/bin/sh\ncat \"$1\"\n";
    std::filesystem::permissions(project / "show", std::filesystem::perms::owner_all);
    std::ofstream(project / "in.txt") << "from the project\n";
    const auto in_directory = [this](const std::filesystem::path& where, const std::string& arguments) {
        return run_process(
            {"sh", "-c", "cd \"$1\" && exec " + hermit_binary() + " " + arguments, "sh", where.string()}, "",
            120, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    };
    const ProcessResult recorded = in_directory(project, "record start -- ./show in.txt");
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ASSERT_EQ(recorded.stdout_text, "from the project\n");
    for (const std::filesystem::path& elsewhere : {directory_, std::filesystem::path("/")}) {
        const ProcessResult replayed = in_directory(elsewhere, "replay --autopilot show-1");
        EXPECT_EQ(replayed.exit_status, 0) << elsewhere << ": " << replayed.stderr_text;
        EXPECT_EQ(replayed.stdout_text, "from the project\n") << elsewhere;
    }
    std::filesystem::copy(data_dir_ / "show-1", data_dir_ / "copied",
                          std::filesystem::copy_options::recursive);
    const ProcessResult copy = hermit({"replay", "--autopilot", (data_dir_ / "copied").string()});
    EXPECT_EQ(copy.exit_status, 0) << copy.stderr_text;
    EXPECT_EQ(copy.stdout_text, "from the project\n");
    const ProcessResult listed = hermit({"record", "list"});
    EXPECT_NE(listed.stdout_text.find("copied"), std::string::npos) << listed.stdout_text;
    EXPECT_NE(listed.stdout_text.find("show-1"), std::string::npos) << listed.stdout_text;
}

// Creating opens and mkdir, which a recording makes from the tracer, find names from the thread's working
// directory and create under its umask, each followed as the guest changes it (tests/guests/
// virt_file_context.c); the replay finds the same names, also from a thread that unshared its directory.
TEST_F(RecordReplayTest, WorkingDirectoryAndUmaskChangesAreFollowedWhenRecordedAndReplayed) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("context", "virt_file_context", "1");
    for (const char* line : {"create second: mode 600\nmkdir second.d: mode 700\n",
                             "create third: mode 640\nmkdir third.d: mode 750\n",
                             "create child: mode 666\nmkdir child.d: mode 777\n", "create fourth: mode 640\n",
                             "in the unshared thread: marker of a\n", "create unshared: mode 666\n",
                             "create fifth: mode 640\n"}) {
        EXPECT_NE(runs.native.stdout_text.find(line), std::string::npos) << line << runs.native.stdout_text;
    }
}

// readlink is recorded in one stop when hermit can find the link as the guest's kernel would: the answers
// are the kernel's (as natively), the recording replays them, and 200 readlinks in a loop cost about 200
// stops, not 400.
TEST_F(RecordReplayTest, ReadlinkIsRecordedInOneStopWithTheKernelsAnswers) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("links", "replay_readlink", "100");
    EXPECT_NE(
        runs.native.stdout_text.find("link: 10 the-target\ntruncated: 3 the\nat directory: 10 the-target\n"
                                     "not a link: Invalid argument\nmissing: No such file or directory\n"
                                     "trailing slash: Invalid argument\nown executable: found\n"),
        std::string::npos)
        << runs.native.stdout_text;
    EXPECT_LT(runs.recording_stops, 300);
}

// An execve of a name that is not there is answered at its entry when recording (one ptrace stop, not
// two) and from the log when replaying, even once the program exists.
TEST_F(RecordReplayTest, FailedExecsAreRecordedInOneStopAndReplayedFromTheLog) {
    const auto scratch = directory_ / "programs";
    std::filesystem::create_directory(scratch);
    auto record = [&](const std::string& name, const std::string& rounds) {
        const ProcessResult recorded =
            hermit({"--log=debug", "record", "start", "--name=" + name, "--",
                    guest_path("replay_missing_programs"), scratch.string(), rounds});
        EXPECT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
        EXPECT_EQ(recorded.stdout_text, rounds + " rounds: ENOENT " + rounds + ", ENOTDIR " + rounds + "\n");
        return ptrace_stops(recorded);
    };
    const long none = record("none", "0");
    const long many = record("many", "100");
    EXPECT_EQ(many - none, 200);

    std::filesystem::create_directory(scratch / "bin");
    std::ofstream(scratch / "bin" / "program") << "#!/bin/sh\necho found\n";
    std::filesystem::permissions(scratch / "bin" / "program", std::filesystem::perms::owner_all);
    const ProcessResult replayed = hermit({"replay", "many-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "100 rounds: ENOENT 100, ENOTDIR 100\n");
}

// getcwd and the ioctls that report a descriptor's state are answered by hermit from their notifications
// when recording (the kernel's answers, failures included, as natively) and from the log when replaying:
// 100 more rounds of both add no ptrace stop.
TEST_F(RecordReplayTest, WorkingDirectoryAndDescriptorStateAreRecordedWithoutAPtraceStop) {
    const ScratchRuns once = run_record_and_replay_in_scratch("asked-once", "replay_queries", "0");
    const ScratchRuns often = run_record_and_replay_in_scratch("asked-often", "replay_queries", "100");
    EXPECT_EQ(once.native.stdout_text,
              "scratch: <scratch>, length + 1\nsmall buffer: Numerical result out of range\n"
              "subdirectory: <scratch>/sub, length + 5\nremoved: No such file or directory\n"
              "FIONREAD of a pipe: 0, 6\nTCGETS of a pipe: -1 Inappropriate ioctl for device\n"
              "TIOCGWINSZ of a pipe: -1 Inappropriate ioctl for device\nrounds: 0 of 0 the same\n");
    EXPECT_NE(often.native.stdout_text.find("rounds: 100 of 100 the same"), std::string::npos)
        << often.native.stdout_text;
    if (once.recording_notifications == 0) {
        GTEST_SKIP() << "no seccomp user notifications (Linux before 5.19): each costs two ptrace stops";
    }
    EXPECT_EQ(often.recording_stops, once.recording_stops);
}

// realpath, canonicalize_file_name and fortified realpath answer as glibc's (the native output), recorded
// and replayed, and their readlinks of system files are made from the syscall buffer library's call site,
// as are opens that read a system file or list a system directory: 100 more rounds of a path under /usr
// (500 readlinks) and of two such opens add almost no notification.
TEST_F(RecordReplayTest, RealpathOfSystemFilesCostsNoStop) {
    const ScratchRuns once = run_record_and_replay_in_scratch("resolved-once", "replay_realpath", "0");
    const ScratchRuns often = run_record_and_replay_in_scratch("resolved-often", "replay_realpath", "100");
    const std::string& native = once.native.stdout_text;
    const std::string scratch = (directory_ / "resolved-once").string();
    EXPECT_NE(native.find("system: /usr/bin\n"), std::string::npos) << native;
    EXPECT_NE(native.find("link: " + scratch + "/f\n"), std::string::npos) << native;
    EXPECT_NE(native.find("through up: " + directory_.string() + "\n"), std::string::npos) << native;
    EXPECT_NE(native.find("file as directory: Not a directory, left (untouched)\n"), std::string::npos)
        << native;
    EXPECT_NE(native.find("missing: No such file or directory, left " + scratch + "/missing\n"),
              std::string::npos)
        << native;
    EXPECT_NE(native.find("loop: Too many levels of symbolic links, left (untouched)\n"), std::string::npos)
        << native;
    EXPECT_NE(native.find("empty: No such file or directory, left (untouched)\n"), std::string::npos)
        << native;
    EXPECT_NE(often.native.stdout_text.find("rounds: 100 of 100 the same\nopens: 100 of 100\n"),
              std::string::npos)
        << often.native.stdout_text;
    if (once.recording_notifications == 0) {
        GTEST_SKIP() << "no seccomp user notifications (Linux before 5.19): each readlink is a ptrace stop";
    }
    EXPECT_LT(often.recording_notifications - once.recording_notifications, 50);
}

// getdents64 is done by hermit on the guest's descriptor from its notification when recording (the kernel's
// records, and failures, as natively) and answered from the log when replaying: 50 more listings of 6 calls
// each add no ptrace stop.
TEST_F(RecordReplayTest, DirectoryReadsAreRecordedWithoutAPtraceStop) {
    const ScratchRuns once = run_record_and_replay_in_scratch("listed-once", "virt_listing", "1");
    const ScratchRuns often = run_record_and_replay_in_scratch("listed-often", "virt_listing", "51");
    EXPECT_NE(once.native.stdout_text.find("42 names in 5 chunks"), std::string::npos)
        << once.native.stdout_text;
    EXPECT_NE(once.native.stdout_text.find("unwritable buffer: -1 Bad address"), std::string::npos);
    if (once.recording_notifications == 0) {
        GTEST_SKIP()
            << "no seccomp user notifications (Linux before 5.19): getdents64 costs two ptrace stops";
    }
    EXPECT_EQ(often.recording_stops, once.recording_stops);
}

// `ls -l` asks statx (with AT_NO_AUTOMOUNT), lgetxattr and getxattr about every name: all three are
// answered from notifications when recording, so 60 names cost no ptrace stop each; the replay prints the
// same listing.
TEST_F(RecordReplayTest, LongListingIsRecordedWithoutAStopPerName) {
    const auto listed = directory_ / "listed";
    std::filesystem::create_directory(listed);
    for (int index = 0; index < 60; ++index) {
        std::ofstream(listed / ("file" + std::to_string(index))) << index;
    }
    const ProcessResult recorded =
        hermit({"--log=debug", "record", "start", "--name=listing", "--", "ls", "-l", listed.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_NE(recorded.stdout_text.find("file59"), std::string::npos) << recorded.stdout_text;
    const ProcessResult replayed = hermit({"replay", "listing-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    ASSERT_GE(ptrace_stops(recorded), 0) << recorded.stderr_text;
    if (notifications(recorded) == 0) {
        GTEST_SKIP() << "no seccomp user notifications (Linux before 5.19): each costs a ptrace stop";
    }
    // About 60 for ls itself, whatever it lists; with a stop per name it would be 60 more.
    EXPECT_LT(ptrace_stops(recorded), 100) << recorded.stderr_text;
}

// readlink and access of system files are left to the kernel, untraced, when recording and replaying (their
// answers are as stable as the system files, which neither is copied): 200 rounds of them add no event.
TEST_F(RecordReplayTest, QuestionsAboutSystemFilesAreNotRecorded) {
    const auto scratch = directory_ / "system";
    auto record = [&](const std::string& name, const std::string& rounds) {
        std::filesystem::remove_all(scratch);
        std::filesystem::create_directory(scratch);
        const ProcessResult recorded = hermit({"record", "start", "--name=" + name, "--",
                                               guest_path("replay_readlink"), scratch.string(), "0", rounds});
        EXPECT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
        EXPECT_NE(recorded.stdout_text.find("system files: " + rounds + " answered\n"), std::string::npos)
            << recorded.stdout_text;
        const ProcessResult replayed = hermit({"replay", name + "-1", "--autopilot"});
        EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
        EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
        // "hermit: recorded ID (N events) in DIR"
        const std::string announcement = "hermit: recorded " + name + "-1 (";
        const size_t at = recorded.stderr_text.find(announcement);
        EXPECT_NE(at, std::string::npos) << recorded.stderr_text;
        return at == std::string::npos ? -1L
                                       : std::stol(recorded.stderr_text.substr(at + announcement.size()));
    };
    EXPECT_EQ(record("none", "0"), record("many", "200"));
}

// access of a name that is missing is recorded in one stop (the dynamic loader asks about
// /etc/ld.so.preload at every program start): the answers are the kernel's, the recording replays them, and
// 200 accesses in a loop cost about 200 stops, not 400.
TEST_F(RecordReplayTest, AccessOfAMissingNameIsRecordedInOneStopWithTheKernelsAnswer) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("access", "replay_access", "200");
    EXPECT_EQ(runs.native.stdout_text,
              "missing: No such file or directory\nunder a file: Not a directory\n"
              "at directory, missing: No such file or directory\nat directory, existing: yes\n"
              "effective ids, missing: No such file or directory\nexisting: yes\n"
              "dangling link: No such file or directory\ndangling link itself: yes\n"
              "bad mode: Invalid argument\nbad flags: Invalid argument\nloop: 200 missing\n");
    EXPECT_LT(runs.recording_stops, 300);
}

// mkdir, link, rename, symlink, unlink and rmdir are done by the tracer in the directories the guest's kernel
// would find, as the guest (its umask, its errors), so each is one notification or stop: 200 in a loop cost
// under 300 stops, not 400. A replay answers them from the log and leaves the scratch directory alone. (The
// guest makes the syscalls itself: libc's wrappers would be answered in its syscall buffer, below.)
TEST_F(RecordReplayTest, NameChangesAreRecordedInOneStopWithTheKernelsAnswers) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("names", "replay_name_changes", "100");
    EXPECT_EQ(
        runs.native.stdout_text,
        "mkdir: yes\nits mode: 750\nmkdir again: File exists\nmkdirat: yes\nits mode: 700\n"
        "mkdir under a file: Not a directory\nlink: yes\nlink again: File exists\nlinkat: yes\n"
        "link of a missing file: No such file or directory\nrename: yes\n"
        "renameat2, no replace: File exists\nrenameat: yes\n"
        "rename of a missing file: No such file or directory\nsymlink: yes\n"
        "symlinkat again: File exists\nunlink of the symlink: yes\nunlink: yes\n"
        "unlink again: No such file or directory\nunlinkat: yes\nunlinkat of a directory: Is a directory\n"
        "rmdir of a full directory: Directory not empty\nunlinkat, removing a directory: yes\n"
        "rmdir with a trailing slash: yes\nrmdir of .: Invalid argument\n"
        "unlinkat with unknown flags: Invalid argument\nloop: 100 made and removed\n");
    EXPECT_LT(runs.recording_stops, 300);
}

// access, link, unlink, mkdir, rename, opens that find no file (or, creating, no directory) and opens that
// make a new file are answered in the guest's syscall buffer, without a stop (tracer/SyscallBuffer.h): 100
// rounds of 11 such calls in each of two threads, which would be 2200 notifications, leave those of
// dprintf's fstats, 200, and a few more. The recording holds each as an event with its paths, and the
// replay, whose answers are placed in the buffer ahead of the calls (a new file's with the private file
// the library creates instead, unless a call ahead changed its name), reproduces the output without
// changing the scratch directory; a vfork child, which shares its parent's buffer, is trapped.
TEST_F(RecordReplayTest, FileNameCallsAreAnsweredInTheGuestsSyscallBuffer) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("buffer", "replay_syscall_buffer", "100");
    EXPECT_EQ(runs.native.stdout_text,
              "main thread: 1000 of 1000\nsecond thread: 1000 of 1000\nforked child: all 10\n"
              "vfork child: found c0/final\nnew files at changed names: yes\n"
              "system files: yes, No such file or directory\n"
              "m0/final: m round 0\nt1/final: t round 1\nc0/final: c round 0\n"
              "after/new: made after the rename\n");
    EXPECT_LT(runs.recording_notifications, 300);
    EXPECT_LT(runs.replay_notifications, 300);
    // 11 per round in two threads and in the forked child, and the 7 of the new files at changed names.
    EXPECT_EQ(buffered_calls("buffer-1"), 2 * 100 * 11 + 11 + 7u);
}

// A library the guest preloads itself comes before hermit's syscall buffer library: its access() still
// answers first, and reaches hermit's through dlsym(RTLD_NEXT), which buffers the call (as fakeroot would).
TEST_F(RecordReplayTest, TheGuestsOwnPreloadedLibraryComesFirst) {
    const std::string preload = "LD_PRELOAD=" + guest_path("libaccess_interposer.so");
    const std::vector<std::string> command = {guest_path("replay_interposed_access"), directory_.string()};
    const ProcessResult native = run_process(command, "", 60, {preload});
    EXPECT_EQ(native.stdout_text, "magic: 0\ndirectory: 0\nmissing: -1\n");
    std::vector<std::string> arguments = {hermit_binary(), "record", "start", "--name=interposed", "--"};
    arguments.insert(arguments.end(), command.begin(), command.end());
    const ProcessResult recorded =
        run_process(arguments, "", 120, {preload, "HERMIT_DATA_DIR=" + data_dir_.string()});
    EXPECT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, native.stdout_text);
    const ProcessResult replayed = hermit({"replay", "interposed-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, native.stdout_text);
    EXPECT_EQ(buffered_calls("interposed-1"), 2u);
}

// A recording made by a hermit installed elsewhere, gone by the time of the replay: the recording holds a
// copy of the syscall buffer's library, as of every file the guest opened outside the system's directories,
// and the replayed guest's dynamic loader opens that copy under the recorded name.
TEST_F(RecordReplayTest, AReplayByAnotherInstallationPreloadsTheRecordedLibrary) {
    const auto installation = directory_ / "elsewhere" / "bin";
    std::filesystem::create_directories(installation);
    const std::filesystem::path build = std::filesystem::path(hermit_binary()).parent_path();
    std::filesystem::copy_file(hermit_binary(), installation / "hermit");
    std::filesystem::copy_file(build / "libhermit_preload.so", installation / "libhermit_preload.so");
    const auto scratch = directory_ / "moved";
    std::filesystem::create_directory(scratch);
    const ProcessResult recorded =
        run_process({(installation / "hermit").string(), "record", "start", "--name=moved", "--",
                     guest_path("replay_syscall_buffer"), scratch.string(), "3"},
                    "", 120, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    const ProcessResult info = hermit({"record", "info", "moved-1", "--json"});
    EXPECT_NE(info.stdout_text.find("LD_PRELOAD=" + (installation / "libhermit_preload.so").string()),
              std::string::npos)
        << info.stdout_text;
    std::filesystem::remove_all(directory_ / "elsewhere");
    std::filesystem::remove_all(scratch);
    std::filesystem::create_directory(scratch);
    const ProcessResult replayed = hermit({"replay", "moved-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

// A file the guest only reads is replayed from its original while that has the recorded bytes. One that an
// open writes, by any of its names (here after a rename), gets a private copy that all its descriptors
// share, as they shared the file when recorded: the descriptor opened before the rename reads "new" (bash
// reads it as descriptor 9: a copy on stdin would be trapped, stdin being a pipe).
TEST_F(RecordReplayTest, OnlyFilesNoOpenWroteAreReplayedFromTheirOriginals) {
    const auto work = directory_ / "work";
    std::filesystem::create_directory(work);
    std::ofstream(work / "read.txt") << "only read\n";
    std::ofstream(work / "a") << "old\n";
    const std::string script = "cd " + work.string() +
                               " && cat read.txt && exec 9<a && mv a b && echo new >b && read -r -u 9 line "
                               "&& echo $line && ln b c && cat c";
    const ProcessResult recorded =
        hermit({"record", "start", "--name=shared", "--", "/bin/bash", "-c", script});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "only read\nnew\nnew\n");
    const ProcessResult info = hermit({"record", "info", "shared-1", "--json"});
    std::string files = info.stdout_text.substr(info.stdout_text.find("\"files\""));
    std::erase_if(files, [](char c) { return c == ' ' || c == '\n'; });
    EXPECT_NE(files.find("\"only_read\":true,\"path\":\"" + (work / "read.txt").string() + "\""),
              std::string::npos)
        << files;
    EXPECT_NE(files.find("\"only_read\":false,\"path\":\"" + (work / "a").string() + "\""), std::string::npos)
        << files;
    // A name the written file gets later, copied at a read-only open, is written too.
    EXPECT_NE(files.find("\"only_read\":false,\"path\":\"" + (work / "c").string() + "\""), std::string::npos)
        << files;

    std::filesystem::remove(work / "b");
    std::filesystem::remove(work / "c");
    std::ofstream(work / "a") << "old\n";
    const ProcessResult replayed = hermit({"replay", "shared-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    EXPECT_FALSE(std::filesystem::exists(work / "b"));
    EXPECT_FALSE(std::filesystem::exists(work / "c"));
}

// truncate(2) by path writes its file as an open for writing does: a descriptor opened before it reads the
// shortened file, in the replay too, from its private copy (the original is left alone).
TEST_F(RecordReplayTest, ATruncateByPathShortensTheReplaysCopy) {
    const auto file = directory_ / "cut.txt";
    std::ofstream(file) << "hello\n";
    const std::string script = "import os; fd = os.open('" + file.string() +
                               "', os.O_RDONLY); os.truncate('" + file.string() +
                               "', 2); print(os.pread(fd, 10, 0))";
    const ProcessResult recorded = hermit({"record", "start", "--name=cut", "--", "python3", "-c", script});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "b'he'\n");
    std::ofstream(file) << "hello\n";

    const ProcessResult replayed = hermit({"replay", "cut-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    EXPECT_EQ(std::filesystem::file_size(file), 6u);
}

// hermit opens or creates a file itself, as the guest, and installs the descriptor: one notification, where
// the kernel's open took an entry and an exit stop; a replay does the same with the file or its copy.
TEST_F(RecordReplayTest, OpensAreRecordedInOneNotificationWithTheKernelsAnswers) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("opens", "replay_opens", "200");
    EXPECT_EQ(runs.native.stdout_text,
              "created: 6 bytes: first\nread-only: yes, close-on-exec\nappending: yes, append\n"
              "appended: 13 bytes: first\nsecond\nread-write: yes, read-write\nthrough a symlink: yes\n"
              "a symlink with O_NOFOLLOW: Too many levels of symbolic links\n"
              "a file with O_DIRECTORY: Not a directory\na directory: yes\n"
              "a directory for writing: Is a directory\nmissing: No such file or directory\n"
              "under a file: Not a directory\nat a directory: yes\n"
              "at a directory, missing: No such file or directory\nO_PATH: yes\n"
              "no permission bits: yes\ncreating, existing: yes\n"
              "creating, exclusive, existing: File exists\n"
              "creating under a missing directory: No such file or directory\n"
              "creating: yes, close-on-exec, read-write\nits mode: 640\ntruncating: yes\n"
              "truncated: 0 bytes: loop: 200 opened\n");
    if (runs.recording_notifications == 0) {
        GTEST_SKIP() << "no seccomp user notifications (Linux before 5.19): opens cost two ptrace stops each";
    }
    EXPECT_LT(runs.recording_stops, 300);
    EXPECT_GE(runs.recording_notifications, 200);
}

// A replay makes none of the names the guest made, yet finds them as the guest's kernel did: symlinks
// (relative, absolute, chained, to a directory it made), a directory it made opened and a file made from
// its descriptor, a hard link, a renamed directory, a removed symlink. The scratch directory is emptied
// before the replay, which leaves it empty.
TEST_F(RecordReplayTest, ReplayFindsTheNamesTheGuestMadeWithoutMakingThem) {
    const ScratchRuns runs = run_record_and_replay_in_scratch("made", "replay_made_names", "20");
    EXPECT_EQ(
        runs.native.stdout_text,
        "through a relative symlink: 6 bytes: first\nthrough an absolute symlink: 6 bytes: first\n"
        "through two symlinks: 20 opened\na system file through a symlink: a program\n"
        "ran through a symlink: exit 0\n"
        "made through a symlink, read by its name: 32 bytes: through the directory's symlink\n"
        "read through the directory's symlink: 32 bytes: through the directory's symlink\n"
        "the directory made, opened: yes\n"
        "read by its path: 37 bytes: made from the directory's descriptor\n"
        "read from the descriptor: 37 bytes: made from the directory's descriptor\n"
        "listed: 2 entries\n"
        "the file, after a write through its hard link: 37 bytes: first\nappended through the hard link\n"
        "the hard link: 37 bytes: first\nappended through the hard link\n"
        "the hard link, the first name removed: 37 bytes: first\nappended through the hard link\n"
        "by its new path: 25 bytes: in the renamed directory\n"
        "by its old path: No such file or directory\n"
        "through the removed symlink: No such file or directory\n"
        "through a symlink to it: No such file or directory\n"
        "from a directory made, by ..: 37 bytes: made from the directory's descriptor\n"
        "after a chdir by .. into another: 37 bytes: made from the directory's descriptor\n");
}

// The same with the shell and the tools: a file renamed and read through a symlink to its new name; a
// directory made, listed, renamed, linked into and walked (find opens the directories and rm -r unlinks from
// their descriptors), all replayed from the emptied directory.
TEST_F(RecordReplayTest, ReplayOfShellToolsFindsTheNamesTheyMade) {
    const auto scratch = directory_ / "shell";
    std::filesystem::create_directory(scratch);
    ProcessResult recorded = hermit(
        {"record", "start", "--", "sh", "-c",
         "cd " + scratch.string() +
             " && echo a > x; mv x y; ln -s y z; cat z; rm y z;"
             " mkdir d && echo b > d/f && ls d && mv d e && ln e/f h && echo c >> h &&"
             " ln -s e s && ls s/ && cat s/f && find . | sort && ls -l e | wc -l &&"
             " cd e && echo d > g && cat g && /bin/pwd | sed 's|.*/||' && cd .. && rm -r e h s && ls"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "a\nf\nf\nb\nc\n.\n./e\n./e/f\n./h\n./s\n2\nd\ne\n");
    std::filesystem::remove_all(scratch);
    std::filesystem::create_directory(scratch);

    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    EXPECT_TRUE(std::filesystem::is_empty(scratch)) << "the replay changed the scratch directory";
}

uint64_t directory_bytes(const std::filesystem::path& directory) {
    uint64_t total = 0;
    for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
        if (entry.is_regular_file()) {
            total += entry.file_size();
        }
    }
    return total;
}

TEST_F(RecordReplayTest, FilesTheVirtualizerGeneratesAreNotRecorded) {
    // Each open of /dev/urandom is served from a generated file with 4 MiB to read; copying it for every
    // open would take 64 * 4 MiB, while the guest reads only 64 * 16 bytes.
    ProcessResult recorded =
        hermit({"record", "start", "--name=urandom", "--", guest_path("replay_urandom"), "64"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text.rfind("64 opens, digest ", 0), 0u) << recorded.stdout_text;
    EXPECT_LT(directory_bytes(data_dir_ / "urandom-1"), 256u * 1024);
    // Nor their events: every run and replay leaves these opens to the kernel (the loader's opens remain).
    ProcessResult dumped = hermit({"record", "dump", "urandom-1"});
    ASSERT_EQ(dumped.exit_status, 0) << dumped.stderr_text;
    size_t opens = 0;
    for (size_t at = dumped.stdout_text.find(" openat("); at != std::string::npos;
         at = dumped.stdout_text.find(" openat(", at + 1)) {
        ++opens;
    }
    EXPECT_LT(opens, 64u) << dumped.stdout_text;

    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

TEST_F(RecordReplayTest, InheritedDescriptorsKeepTheirNumbersOnReplay) {
    const auto input = directory_ / "inherited.txt";
    const auto output = directory_ / "written.txt";
    std::ofstream(input) << "inherited contents";
    const std::vector<std::string> environment = {"HERMIT_DATA_DIR=" + data_dir_.string()};
    // The shell opens 4 and 7 for hermit (and closes whatever else of 3-9 the test runner left open).
    ProcessResult recorded =
        run_process({"sh", "-c",
                     "exec \"$0\" record start -- \"$1\" \"$2\" 3<&- 5<&- 6<&- 8<&- 9<&- "
                     "4<\"$2\" 7>\"$3\"",
                     hermit_binary(), guest_path("replay_descriptors"), input.string(), output.string()},
                    "", 120, environment);
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "inherited: 4 7\nread 18 bytes from 4: inherited contents\nwrote to 7\n"
                                    "opened at 3\n");

    // Replayed from a hermit holding 3 and 5 instead: the guest must still get 4 and 7 only, and its
    // open must still return 3; the write to 7 must not reach the user's file again.
    std::ofstream(input, std::ios::trunc) << "changed";
    ProcessResult replayed =
        run_process({"sh", "-c", "exec \"$0\" replay --autopilot 4<&- 6<&- 7<&- 8<&- 9<&- 3<\"$1\" 5<\"$1\"",
                     hermit_binary(), input.string()},
                    "", 120, environment);
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    std::ifstream stream(output);
    EXPECT_EQ(std::string((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>()),
              "to 7\n");
}

// Records replay_outside_signal (with `mode` as its second argument) under the name "outside" while a
// shell sends it SIGUSR1 once it is ready; returns the recording's result.
ProcessResult RecordReplayTest::record_with_outside_signal(const std::string& mode) {
    const auto ready = directory_ / "ready";
    // The shell starts the recording, waits until the guest's handler is installed and sends SIGUSR1 to
    // the guest (the namespace holder's child, or hermit's child when namespaces are unavailable).
    const std::string script =
        "\"$0\" record start --name=outside -- \"$1\" \"$2\" \"$3\" & recorder=$!; tries=0;"
        " while [ ! -s \"$2\" ] && [ $tries -lt 3000 ]; do sleep 0.01; tries=$((tries+1)); done;"
        " holder=$(pgrep -P $recorder); guest=$(pgrep -P $holder);"
        " kill -USR1 ${guest:-$holder}; wait $recorder";
    return run_process(
        {"sh", "-c", script, hermit_binary(), guest_path("replay_outside_signal"), ready.string(), mode}, "",
        120, {"HERMIT_DATA_DIR=" + data_dir_.string()});
}

TEST_F(RecordReplayTest, SignalsFromOutsideAreDeliveredAtTheSameEventOnReplay) {
    ProcessResult recorded = record_with_outside_signal("loop");
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stdout_text << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text.rfind("SIGUSR1 (si_code 0) after ", 0), 0u) << recorded.stdout_text;

    ProcessResult replayed = hermit({"replay", "outside-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
    ProcessResult dump = hermit({"record", "dump", "outside-1"});
    EXPECT_NE(dump.stdout_text.find("signal 10 (code 0, from outside the guest, pid 0)"), std::string::npos);
}

TEST_F(RecordReplayTest, SignalFromOutsideEndsAPauseOnReplay) {
    ProcessResult recorded = record_with_outside_signal("pause");
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stdout_text << recorded.stderr_text;
    EXPECT_EQ(recorded.stdout_text, "pause = -1 (Interrupted system call), SIGUSR1 (si_code 0)\n");

    ProcessResult replayed = hermit({"replay", "outside-1", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text);
}

// A hermit SIGKILLed mid-run leaves an unfinished recording whose metadata lists every file its written
// frames use: the guest opens the input often enough to fill a frame (4096 events), says so through the
// marker, and blocks opening a FIFO nobody writes until the shell kills hermit.
TEST_F(RecordReplayTest, KilledRecordingListsTheFilesOfItsWrittenFrames) {
    const auto input = directory_ / "input.txt";
    const auto marker = directory_ / "frame-written";
    const auto fifo = directory_ / "never-written";
    std::ofstream(input) << "read before the kill";
    ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const std::string guest = "for i in $(seq 1500); do : < \"$1\"; done; echo ready > \"$2\"; : < \"$3\"";
    const std::string script =
        "\"$0\" record start --name=killed -- sh -c '" + guest +
        "' guest \"$1\" \"$2\" \"$3\" & recorder=$!; tries=0;"
        " while [ ! -s \"$2\" ] && [ $tries -lt 3000 ]; do sleep 0.01; tries=$((tries+1)); done;"
        " kill -KILL $recorder; wait $recorder";
    ProcessResult killed =
        run_process({"sh", "-c", script, hermit_binary(), input.string(), marker.string(), fifo.string()}, "",
                    120, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    ASSERT_EQ(killed.exit_status, 128 + SIGKILL) << killed.stderr_text;

    ProcessResult info = hermit({"record", "info", "killed-1"});
    ASSERT_EQ(info.exit_status, 0) << info.stderr_text;
    EXPECT_NE(info.stdout_text.find("unfinished"), std::string::npos) << info.stdout_text;
    const size_t events_at = info.stdout_text.find("\nEvents ");
    ASSERT_NE(events_at, std::string::npos) << info.stdout_text;
    EXPECT_GE(std::stoull(info.stdout_text.substr(events_at + 8)), 4096u) << info.stdout_text;
    const size_t listed = info.stdout_text.find("  " + input.string() + " (");
    ASSERT_NE(listed, std::string::npos) << "the input is used by a written frame but not listed\n"
                                         << info.stdout_text;
    std::ifstream pack(data_dir_ / "killed-1" / "files.pack");
    const std::string copies((std::istreambuf_iterator<char>(pack)), std::istreambuf_iterator<char>());
    EXPECT_NE(copies.find("read before the kill"), std::string::npos) << copies;
}

TEST_F(RecordReplayTest, DumpPrintsOneIndexedLinePerEvent) {
    ASSERT_EQ(hermit({"record", "start", "--", guest_path("tracer_threads")}).exit_status, 0);
    ProcessResult dump = hermit({"record", "dump", "--count", "2"});
    EXPECT_EQ(dump.exit_status, 0) << dump.stderr_text;
    EXPECT_EQ(dump.stdout_text,
              "0: thread 1: started by thread 0 (new process)\n1: thread 1: scheduled first\n");
}

TEST_F(RecordReplayTest, DamagedEventStreamIsRefusedWithE031) {
    const auto input = directory_ / "input.txt";
    std::ofstream(input) << "x";
    ASSERT_EQ(hermit({"record", "start", "--", guest_path("replay_inputs"), input.string()}).exit_status, 7);
    const auto events = data_dir_ / "replay_inputs-1" / "events.hrec";
    const auto size = std::filesystem::file_size(events);
    ASSERT_GT(size, 40u);
    {
        std::fstream stream(events, std::ios::in | std::ios::out | std::ios::binary);
        stream.seekg(static_cast<std::streamoff>(size - 10));
        char byte = 0;
        stream.read(&byte, 1);
        byte = static_cast<char>(byte ^ 0x5a);
        stream.seekp(static_cast<std::streamoff>(size - 10));
        stream.write(&byte, 1);
    }
    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 3);
    EXPECT_NE(replayed.stderr_text.find("E031"), std::string::npos) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("is corrupt"), std::string::npos) << replayed.stderr_text;
}

TEST_F(RecordReplayTest, ReplayOfMissingRecordingFailsWithE035) {
    ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 3);
    EXPECT_NE(replayed.stderr_text.find("E03"), std::string::npos) << replayed.stderr_text;
}

// Everything `hermit run` takes, record start takes too, and the metadata says what the run really used.
TEST_F(RecordReplayTest, RecordStartTakesTheRunOptionsAndNamesTheScheduleItUsed) {
    const ProcessResult recorded = hermit({"record", "start", "--epoch=2020-01-01T00:00:00Z", "--strict",
                                           "--preemption-timeout=disabled", "--chaos", "--", "date", "+%Y"});
    // --strict fails on a host without CPUID faulting or rdtsc trapping: either way, not a usage error.
    ASSERT_NE(recorded.exit_status, 2) << recorded.stderr_text;
    if (recorded.exit_status == 0) {
        EXPECT_EQ(recorded.stdout_text, "2020\n");
        const ProcessResult info = hermit({"record", "info", "latest"});
        EXPECT_NE(info.stdout_text.find("chaos true, heuristic random"), std::string::npos)
            << info.stdout_text;
        EXPECT_NE(info.stdout_text.find("strict true, namespaces true"), std::string::npos)
            << info.stdout_text;
    }
    // Host pids differ in every run: such a recording could never replay, so it is not made.
    const ProcessResult without_namespaces = hermit({"record", "start", "--no-namespaces", "--", "true"});
    EXPECT_EQ(without_namespaces.exit_status, 2);
    EXPECT_NE(without_namespaces.stderr_text.find("--no-namespaces cannot be recorded"), std::string::npos)
        << without_namespaces.stderr_text;
    const ProcessResult round_robin = hermit(
        {"record", "start", "--chaos", "--sched-heuristic=none", "--epoch=1577836800", "--", "date", "+%Y"});
    ASSERT_EQ(round_robin.exit_status, 0) << round_robin.stderr_text;
    EXPECT_EQ(round_robin.stdout_text, "2020\n");
    const ProcessResult info = hermit({"record", "info", "latest"});
    EXPECT_NE(info.stdout_text.find("chaos true, heuristic none"), std::string::npos) << info.stdout_text;
}

} // namespace
} // namespace hermit::testing
