// RecordingWriter and RecordingReader on real files: round trips, frames, seek, unfinished recordings,
// permissions and recorded file copies.
#include "TestRecordings.h"

#include "formats/Error.h"
#include "formats/Recording.h"
#include "formats/Sha256.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <set>
#include <sys/stat.h>

namespace hermit {
namespace {

using test::TemporaryDirectory;

// input.txt in `temporary`, holding `text`: a file the guest read.
std::filesystem::path input_file(const TemporaryDirectory& temporary, const std::string& text) {
    const auto input = temporary.path() / "input.txt";
    std::ofstream(input) << text;
    return input;
}

mode_t mode_of(const std::filesystem::path& path) {
    struct stat status {};
    EXPECT_EQ(::lstat(path.c_str(), &status), 0) << path;
    return status.st_mode & 07777;
}

TEST(EventKindName, NamesEveryKind) {
    std::vector<std::string> names;
    for (const auto& event : test::every_kind_of_event()) {
        names.push_back(event_kind_name(event.payload));
    }
    EXPECT_EQ(names, (std::vector<std::string>{"schedule", "exec", "syscall", "thread_start", "schedule",
                                               "rdtsc", "cpuid", "stdio", "signal", "thread_exit", "schedule",
                                               "thread_exit"}));
}

TEST(Recording, RoundTripsEveryEventKindAndTheMetadata) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::every_kind_of_event();
    test::write_recording(directory, events);

    RecordingReader reader(directory);
    EXPECT_EQ(reader.read_all(), events);
    const auto& meta = reader.meta();
    EXPECT_EQ(meta.format_version, 9u);
    EXPECT_EQ(meta.id, "rec") << "a recording is known by its directory's name";
    EXPECT_EQ(meta.argv, (std::vector<std::string>{"/bin/true", "x"}));
    EXPECT_EQ(meta.env, (std::vector<std::string>{"PATH=/usr/bin"}));
    EXPECT_EQ(meta.cwd, "/tmp");
    EXPECT_EQ(meta.config.seed, 42u);
    EXPECT_TRUE(meta.config.chaos);
    EXPECT_EQ(meta.config.sched_heuristic, "pct");
    EXPECT_EQ(meta.host.kernel_release, "6.18.0");
    EXPECT_TRUE(meta.finished);
    EXPECT_EQ(meta.event_count, events.size());
    EXPECT_EQ(meta.thread_count, 2u);
    EXPECT_EQ(meta.guest_duration_ns, 110u);
    EXPECT_EQ(meta.inherited_descriptors, test::sample_meta("sample-1").inherited_descriptors);
}

TEST(Recording, EmptyFinishedRecordingReadsAsNoEvents) {
    TemporaryDirectory temporary;
    test::write_recording(temporary.path() / "rec", {});
    RecordingReader reader(temporary.path() / "rec");
    EXPECT_TRUE(reader.read_all().empty());
    Event event;
    EXPECT_FALSE(reader.next(event));
}

TEST(Recording, ManyFramesStreamAndSeek) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::many_events(20000); // five frames of at most 4096 events
    test::write_recording(directory, events);

    RecordingReader reader(directory);
    EXPECT_EQ(reader.read_all(), events);
    for (uint64_t index :
         {uint64_t{19999}, uint64_t{0}, uint64_t{4095}, uint64_t{4096}, uint64_t{12345}, uint64_t{8191}}) {
        reader.seek(index);
        Event event;
        ASSERT_TRUE(reader.next(event)) << index;
        EXPECT_EQ(event, events[index]) << index;
        ASSERT_TRUE(index + 1 == events.size() || reader.next(event));
        if (index + 1 < events.size()) {
            EXPECT_EQ(event, events[index + 1]);
        }
    }
    reader.seek(events.size());
    Event event;
    EXPECT_FALSE(reader.next(event));
    EXPECT_THROW(reader.seek(events.size() + 1), std::out_of_range);
}

TEST(Recording, LargeMemoryWritesSplitFramesBySize) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    std::vector<Event> events;
    for (int i = 0; i < 6; ++i) {
        std::vector<uint8_t> data(400 * 1024);
        for (size_t j = 0; j < data.size(); ++j) {
            data[j] = static_cast<uint8_t>((j * 31 + static_cast<size_t>(i)) >> 3);
        }
        events.push_back({static_cast<uint64_t>(i), 1, 1,
                          SyscallEvent{0,
                                       {3, 0x1000, data.size()},
                                       static_cast<int64_t>(data.size()),
                                       false,
                                       {{0x1000, data}},
                                       false,
                                       {}}});
    }
    test::write_recording(directory, events);
    RecordingReader reader(directory);
    EXPECT_EQ(reader.read_all(), events);
}

// A call made in the guest's syscall buffer keeps its flag and its paths (tracer/SyscallBuffer.h).
TEST(Recording, BufferedCallsKeepTheirPaths) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const std::vector<Event> events{
        {10, 1, 1, SyscallEvent{86, {0x5000, 0x5010}, 0, false, {}, true, {"a/tmp", "a/object"}}},
        {20, 1, 1, SyscallEvent{21, {0x5020, 0}, -2, false, {}, true, {""}}}};
    test::write_recording(directory, events);
    EXPECT_EQ(RecordingReader(directory).read_all(), events);
}

TEST(Recording, WriterDestroyedWithoutFinishLeavesAReadableUnfinishedRecording) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto events = test::many_events(5000);
    {
        RecordingWriter writer(directory, test::sample_meta("died-1"));
        for (const auto& event : events) {
            writer.append(event);
        }
        EXPECT_EQ(writer.event_count(), events.size());
    }
    RecordingReader reader(directory);
    EXPECT_FALSE(reader.meta().finished);
    EXPECT_EQ(reader.meta().event_count, events.size());
    EXPECT_EQ(reader.meta().thread_count, 2u);
    EXPECT_EQ(reader.meta().guest_duration_ns, events.back().time);
    EXPECT_EQ(reader.read_all(), events);
}

TEST(Recording, FlushMakesEventsVisibleBeforeFinish) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    RecordingWriter writer(directory, test::sample_meta("live-1"));
    writer.flush();
    const auto events = test::every_kind_of_event();
    for (const auto& event : events) {
        writer.append(event);
    }
    EXPECT_EQ(RecordingReader(directory).meta().event_count, 0u);
    writer.flush();
    RecordingReader reader(directory);
    EXPECT_EQ(reader.meta().event_count, events.size());
    EXPECT_EQ(reader.read_all(), events);
}

TEST(Recording, RefusesToOverwriteARecording) {
    TemporaryDirectory temporary;
    test::write_recording(temporary.path() / "rec", {});
    try {
        RecordingWriter writer(temporary.path() / "rec", test::sample_meta("again"));
        FAIL() << "expected E034";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::RecordingIo);
    }
}

TEST(Recording, PermissionsArePrivateWhateverTheUmask) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto input = input_file(temporary, "data the guest read\n");
    const mode_t previous = ::umask(0);
    {
        RecordingWriter writer(directory, test::sample_meta("perm-1"));
        writer.append(test::every_kind_of_event().front());
        writer.add_file("/etc/input.txt", input);
        writer.finish(0, 1);
    }
    ::umask(previous);
    EXPECT_EQ(mode_of(directory), 0700u);
    EXPECT_EQ(mode_of(directory / "files.pack"), 0600u);
    for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
        if (entry.is_regular_file()) {
            EXPECT_EQ(mode_of(entry.path()), 0600u) << entry.path();
        }
    }
}

TEST(Recording, AddFileCopiesOnceUnderItsDigest) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto input = input_file(temporary, "abc");
    RecordedFile first;
    {
        RecordingWriter writer(directory, test::sample_meta("files-1"));
        first = writer.add_file("/data/input.txt", input);
        auto again = writer.add_file("/data/input.txt", input);
        EXPECT_EQ(again.sha256, first.sha256);
        writer.add_file("/data/other-name.txt", input);
        writer.finish(0, 0);
    }
    EXPECT_EQ(first.sha256, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(first.size, 3u);
    RecordingReader reader(directory);
    ASSERT_EQ(reader.meta().files.size(), 2u);
    EXPECT_EQ(reader.meta().files[0].path, "/data/input.txt");
    EXPECT_EQ(test::recorded_copy(reader, reader.meta().files[0]), "abc");
    EXPECT_EQ(test::recorded_copy(reader, reader.meta().files[1]), "abc");
    // The same bytes under two names are kept once.
    EXPECT_EQ(reader.meta().files[1].offset, reader.meta().files[0].offset);
    EXPECT_EQ(std::filesystem::file_size(directory / "files.pack"), 3u);
}

// Whether any open wrote a copied file reaches the reader, also when it was learnt after the copy; a name
// copied again by a writing open is no longer only read.
TEST(Recording, OnlyReadFilesAreMarkedUntilWritten) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto input = input_file(temporary, "abc");
    {
        RecordingWriter writer(directory, test::sample_meta("only-read-1"));
        EXPECT_TRUE(writer.add_file("/data/read.txt", input, true).only_read);
        writer.add_file("/data/written-later.txt", input, true);
        writer.add_file("/data/copied-again.txt", input, true);
        writer.flush();
        writer.mark_written("/data/written-later.txt");
        EXPECT_FALSE(writer.add_file("/data/copied-again.txt", input, false).only_read);
        writer.finish(0, 0);
    }
    RecordingReader reader(directory);
    ASSERT_EQ(reader.meta().files.size(), 3u);
    EXPECT_TRUE(reader.meta().files[0].only_read);
    EXPECT_FALSE(reader.meta().files[1].only_read);
    EXPECT_FALSE(reader.meta().files[2].only_read);
}

// A copy that files.pack lacks or that differs from its digest is a damaged recording, not a file to replay.
TEST(Recording, ADamagedCopyIsReportedAsACorruptRecording) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    {
        RecordingWriter writer(directory, test::sample_meta("files-4"));
        for (const std::string name : {"first", "second"}) {
            const auto input = temporary.path() / name;
            std::ofstream(input) << name;
            writer.add_file("/data/" + name + ".txt", input);
        }
        writer.finish(0, 0);
    }
    const auto pack = directory / "files.pack";
    ASSERT_EQ(std::filesystem::file_size(pack), 11u);
    auto expect_corrupt = [&](const RecordedFile& file, const std::string& detail) {
        RecordingReader reader(directory);
        try {
            test::recorded_copy(reader, file);
            FAIL() << "expected E031 for " << file.path;
        } catch (const Error& error) {
            EXPECT_EQ(error.code(), ErrorCode::RecordingCorrupt);
            EXPECT_NE(std::string(error.what()).find(detail), std::string::npos) << error.what();
        }
    };
    const RecordingMeta meta = RecordingReader(directory).meta();
    {
        std::fstream flip(pack, std::ios::in | std::ios::out | std::ios::binary);
        flip.seekp(1);
        flip.put('X');
    }
    expect_corrupt(meta.files[0], "does not match its SHA-256");
    EXPECT_EQ(test::recorded_copy(RecordingReader(directory), meta.files[1]), "second");
    std::filesystem::resize_file(pack, 8);
    expect_corrupt(meta.files[1], "files.pack ends inside the copy of '/data/second.txt'");
    std::filesystem::remove(pack);
    expect_corrupt(meta.files[1], "files.pack is missing");
}

std::string whole_file(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file whose size reads as 0 but that has contents (/proc) is still copied whole.
TEST(Recording, AddFileCopiesLargeFilesAndFilesWhoseSizeReadsAsZero) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto large = temporary.path() / "large.bin";
    std::string bytes(3 * 1024 * 1024 + 17, '\0');
    for (size_t index = 0; index < bytes.size(); index++) {
        bytes[index] = static_cast<char>(index * 7 % 251);
    }
    std::ofstream(large, std::ios::binary) << bytes;
    const std::filesystem::path generated = "/proc/self/cmdline";
    ASSERT_EQ(std::filesystem::file_size(generated), 0u);
    RecordedFile large_entry;
    RecordedFile generated_entry;
    {
        RecordingWriter writer(directory, test::sample_meta("files-3"));
        large_entry = writer.add_file("/data/large.bin", large);
        generated_entry = writer.add_file("/data/cmdline", generated);
        writer.finish(0, 0);
    }
    RecordingReader reader(directory);
    EXPECT_EQ(test::recorded_copy(reader, large_entry), bytes);
    const std::string command_line = whole_file(generated);
    ASSERT_FALSE(command_line.empty());
    EXPECT_EQ(test::recorded_copy(reader, generated_entry), command_line);
    EXPECT_EQ(generated_entry.size, command_line.size());
}

TEST(Recording, AddFileOfMissingHostFileThrowsIoError) {
    TemporaryDirectory temporary;
    RecordingWriter writer(temporary.path() / "rec", test::sample_meta("files-2"));
    try {
        writer.add_file("/nope", temporary.path() / "does-not-exist");
        FAIL() << "expected E034";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::RecordingIo);
    }
}

// What a SIGKILLed hermit leaves is what is on disk while the writer lives: every frame written finds the
// files its events use in the metadata on disk.
TEST(Recording, EveryFileAWrittenFrameUsesIsListedOnDisk) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto first_input = temporary.path() / "first.txt";
    const auto second_input = temporary.path() / "second.txt";
    std::ofstream(first_input) << "first program";
    std::ofstream(second_input) << "second program";
    auto append_exec = [](RecordingWriter& writer, uint64_t time, const RecordedFile& file) {
        writer.append(Event{time, 1, 1, ExecEvent{file.path, {file.path}, file.sha256}});
    };
    // Every recorded file a reader of the stream meets, checked against the metadata and the copies.
    auto expect_files_of_written_frames_listed = [&](size_t expected_execs) {
        RecordingReader reader(directory);
        size_t execs = 0;
        for (const Event& event : reader.read_all()) {
            const auto* exec = std::get_if<ExecEvent>(&event.payload);
            if (exec == nullptr) {
                continue;
            }
            ++execs;
            const auto& files = reader.meta().files;
            auto listed = std::find_if(files.begin(), files.end(), [&](const RecordedFile& file) {
                return file.path == exec->path && file.sha256 == exec->sha256;
            });
            ASSERT_NE(listed, files.end()) << exec->path << " is used by a written frame but not listed";
            EXPECT_EQ(test::recorded_copy(reader, *listed),
                      exec->path == "/bin/first" ? "first program" : "second program");
        }
        EXPECT_EQ(execs, expected_execs);
    };

    std::optional<RecordingWriter> writer(std::in_place, directory, test::sample_meta("killed-1"));
    append_exec(*writer, 0, writer->add_file("/bin/first", first_input));
    // Enough events after it to cut the frame while the writer runs on.
    const auto events = test::many_events(5000);
    for (const Event& event : events) {
        writer->append(event);
    }
    append_exec(*writer, events.back().time, writer->add_file("/bin/second", second_input));
    expect_files_of_written_frames_listed(1);
    // Destroyed without finish(), as when the run throws: its last frame keeps its files too.
    writer.reset();
    expect_files_of_written_frames_listed(2);
}

// Rewriting the whole file list at every copy made a recording O(n^2) in the files it copied. Each update
// takes the old metadata's name by an exchange and unlinks the old file: nothing else stays.
TEST(Recording, AddFileWritesTheMetadataWithTheNextFrameNotAtOnce) {
    TemporaryDirectory temporary;
    const auto directory = temporary.path() / "rec";
    const auto input = input_file(temporary, "abc");
    RecordingWriter writer(directory, test::sample_meta("batched-1"));
    writer.flush();
    writer.add_file("/data/a.txt", input);
    writer.add_file("/data/b.txt", input);
    EXPECT_TRUE(RecordingReader(directory).meta().files.empty());
    writer.append(test::every_kind_of_event().front());
    writer.flush();
    EXPECT_EQ(RecordingReader(directory).meta().files.size(), 2u);

    writer.add_file("/data/c.txt", input_file(temporary, "def"));
    writer.append(test::every_kind_of_event().front());
    writer.finish(3, 0);
    std::set<std::string> names;
    for (const auto& entry : std::filesystem::directory_iterator(directory)) {
        names.insert(entry.path().filename().string());
    }
    EXPECT_EQ(names, (std::set<std::string>{"events.hrec", "files.pack", "meta.capnp.bin", "summary.hrec"}));
    const RecordingMeta meta = RecordingReader(directory).meta();
    EXPECT_TRUE(meta.finished);
    EXPECT_EQ(meta.exit_status, 3);
    EXPECT_EQ(meta.files.size(), 3u);
}

TEST(Sha256, KnownVectors) {
    auto digest = [](const std::string& text) {
        return sha256_hex(
            std::span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
    };
    EXPECT_EQ(digest(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    EXPECT_EQ(digest("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(digest("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
              "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    TemporaryDirectory temporary;
    const auto file = temporary.path() / "million-a";
    std::ofstream(file) << std::string(1000000, 'a');
    EXPECT_EQ(sha256_hex_of_file(file), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

} // namespace
} // namespace hermit
