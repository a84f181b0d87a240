// The Recorder on a real guest: the recording holds the outside inputs (file bytes as memory writes of
// read, a copy of the file) and the guest's stdout as StdioEvents.

#include "replay/Recorder.h"
#include "replay/RecordedSyscalls.h"
#include "tests/formats/TestRecordings.h"

#include "tracer/GuestRun.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

extern char** environ;

namespace hermit::replay {
namespace {

// The guest reads a file and prints its size: the file is copied into the recording and its reads run
// natively (a replay reads the copy), while writes to the trapped stdout are captured.
TEST(Recorder, CopiesReadFilesAndCapturesStdout) {
    char pattern[] = "/tmp/hermit-recorder-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::filesystem::path directory = pattern;
    const auto input = directory / "input.txt";
    std::ofstream(input) << "recorder input bytes";

    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; entry++) {
        env.emplace_back(*entry);
    }
    tracer::GuestRun run(tracer::GuestRunSpec{
        {std::string(HERMIT_GUEST_DIR) + "/replay_inputs", input.string()}, env, {}, RunConfig{}});
    RecordingMeta meta;
    meta.id = "test";
    meta.trapped_descriptors = {0, 1, 2};
    tracer::DescriptorTraps descriptor_traps = recorded_descriptor_traps(meta);
    run.add_interceptor(&descriptor_traps);
    run.add_event_sink(&descriptor_traps);
    int status = 0;
    {
        RecordingWriter writer(directory / "recording", meta);
        Recorder recorder(writer);
        run.add_interceptor(&recorder);
        run.add_event_sink(&recorder);
        status = run.run();
        writer.finish(status, recorder.last_event_time());
    }
    EXPECT_EQ(status, 7);

    RecordingReader reader(directory / "recording");
    const auto& files = reader.meta().files;
    auto copy = std::find_if(files.begin(), files.end(),
                             [&](const RecordedFile& file) { return file.path == input.string(); });
    ASSERT_NE(copy, files.end());
    EXPECT_EQ(copy->size, 20u);
    EXPECT_EQ(test::recorded_copy(reader, *copy).size(), 20u);
    bool read_captured = false;
    std::string stdout_text;
    for (const Event& event : reader.read_all()) {
        if (const auto* syscall = std::get_if<SyscallEvent>(&event.payload)) {
            for (const MemoryWrite& write : syscall->memory_writes) {
                read_captured |= syscall->number == SYS_read &&
                                 std::string(write.data.begin(), write.data.end()) == "recorder input bytes";
            }
        } else if (const auto* stdio = std::get_if<StdioEvent>(&event.payload); stdio && stdio->fd == 1) {
            stdout_text.append(stdio->data.begin(), stdio->data.end());
        }
    }
    EXPECT_FALSE(read_captured);
    EXPECT_NE(stdout_text.find("file size 20"), std::string::npos) << stdout_text;
    std::filesystem::remove_all(directory);
}

} // namespace
} // namespace hermit::replay
