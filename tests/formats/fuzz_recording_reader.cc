// libFuzzer target: the input becomes events.hrec next to a valid, unfinished meta.capnp.bin, and the
// reader reads everything. Only hermit::Error may escape; a crash, hang or other exception is a bug.
//   in a clang build: cmake --build BUILD --target fuzz_recording_reader
//                     BUILD/tests/formats/fuzz_recording_reader -max_total_time=60 CORPUS_DIR
#include "formats/Error.h"
#include "formats/Recording.h"

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

const std::filesystem::path& fuzz_recording() {
    static const std::filesystem::path directory = [] {
        std::string pattern = (std::filesystem::temp_directory_path() / "hermit-fuzz-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            std::abort();
        }
        static const std::filesystem::path root = pattern;
        std::atexit([] {
            std::error_code ignored;
            std::filesystem::remove_all(root, ignored);
        });
        auto recording = root / "rec";
        hermit::RecordingMeta meta;
        meta.id = "fuzz";
        meta.argv = {"fuzz"};
        // Left unfinished: the reader then also runs its recount of the stream at open.
        hermit::RecordingWriter writer(recording, meta);
        return recording;
    }();
    return directory;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const auto& directory = fuzz_recording();
    {
        std::ofstream out(directory / "events.hrec", std::ios::binary | std::ios::trunc);
        out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
        hermit::RecordingReader reader(directory);
        reader.read_all();
        if (reader.meta().event_count > 0) {
            reader.seek(reader.meta().event_count - 1);
            hermit::Event event;
            reader.next(event);
        }
    } catch (const hermit::Error&) {
    }
    return 0;
}
