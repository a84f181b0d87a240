#pragma once
// The recording directory: metadata plus an event stream. RecordingWriter streams frames while the guest
// runs (through a FrameWriter: a crash loses at most the batch being filled and the ones waiting to be
// written, and the metadata on disk lists every file a written frame uses); RecordingReader validates
// everything it reads and throws hermit::Error (E031-E034) naming what is wrong.

#include "Error.h"
#include "Event.h"
#include "EventColumns.h"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hermit {

struct RunConfig {
    uint64_t seed = 0;
    int64_t epoch_ns = 0;
    bool chaos = false;
    std::string sched_heuristic = "none";
    uint32_t pct_depth = 3;
    int64_t preemption_timeout = -1; // -1 = disabled
    bool strict = false;
    bool namespaces = true;
};

struct HostFacts {
    std::string kernel_release;
    bool cpuid_faulting = false;
    bool tsc_trapping = false;
    bool pmu_available = false;
    uint32_t cpu_count = 0;
};

// A copy of a file the guest read, kept in the recording's files.pack.
struct RecordedFile {
    std::string path;   // as the guest opened it
    std::string sha256; // of the copy's bytes; copies of the same bytes share one place in files.pack
    uint64_t size = 0;
    uint64_t offset = 0;    // where the copy starts in files.pack
    bool only_read = false; // no open of the recording could write to it (schema: RecordedFile.onlyRead)
};

// A system file the guest opened, kept in the store's blobs (schema: SystemFile).
struct SystemFile {
    std::string path;
    std::string sha256;
    uint64_t size = 0;
};

// A descriptor above 2 the guest inherited from whoever started hermit (schema: InheritedDescriptor).
struct InheritedDescriptor {
    enum class Kind : uint8_t { File, Directory, Pipe, Socket };
    int32_t fd = 0;
    Kind kind = Kind::File;
    uint32_t status_flags = 0; // fcntl(F_GETFL)
    bool operator==(const InheritedDescriptor&) const = default;
};

struct RecordingMeta {
    uint32_t format_version = 0;
    std::string id;
    std::string name;
    std::vector<std::string> argv;
    std::vector<std::string> env;
    std::string cwd;
    std::string hermit_version;
    int64_t started_at_unix_ms = 0;
    RunConfig config;
    HostFacts host;
    bool finished = false;
    int32_t exit_status = 0;
    uint64_t event_count = 0;
    uint32_t thread_count = 0;
    uint64_t guest_duration_ns = 0;
    std::vector<RecordedFile> files;
    std::vector<InheritedDescriptor> inherited_descriptors;
    // Descriptors whose reads and writes are trapped from the start (replay/RecordedSyscalls.h).
    std::vector<int32_t> trapped_descriptors;
    // A regular-file stdin is copied into the recording as the file named kStdinCopy; the guest started
    // reading it here.
    uint64_t stdin_offset = 0;
    static constexpr const char* kStdinCopy = "<stdin>";
    std::vector<SystemFile> system_files; // by path; kept in the store's BlobStore
};

// The bytes of meta.capnp.bin for `meta`: the Cap'n Proto message and its checksum.
std::vector<uint8_t> meta_file_bytes(const RecordingMeta& meta);

class RecordingWriter {
public:
    // Creates `directory` (mode 0700) and events.hrec, and hands meta.capnp.bin (finished = false) to the
    // writing thread: it is on disk once flush() returns.
    RecordingWriter(std::filesystem::path directory, RecordingMeta meta);
    ~RecordingWriter(); // flushes; leaves finished = false unless finish() ran
    RecordingWriter(const RecordingWriter&) = delete;
    RecordingWriter& operator=(const RecordingWriter&) = delete;

    void append(Event event);
    // Copies a file the guest read to files.pack (bytes the pack already holds are kept once); returns its
    // entry. The metadata on disk lists it from the next frame written on (add it before appending the
    // events that use it).
    RecordedFile add_file(const std::string& guest_path, const std::filesystem::path& host_path,
                          bool only_read = false);
    // The guest opened the file copied for `guest_path` for writing, maybe by another name: its entry is
    // no longer only read.
    void mark_written(const std::string& guest_path);
    // Returns once what was appended and the metadata are on disk.
    void flush();
    // The system files the guest opened (their bytes are in the store's blobs): listed by finish().
    void set_system_files(std::vector<SystemFile> files);
    // Rewrites the metadata with finished = true and the totals, then writes the last frame.
    void finish(int32_t exit_status, uint64_t guest_duration_ns);
    uint64_t event_count() const;
    const std::filesystem::path& directory() const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

class RecordingReader {
public:
    // Opens and validates the metadata; events are read lazily. Throws hermit::Error.
    explicit RecordingReader(std::filesystem::path directory);
    ~RecordingReader();
    RecordingReader(RecordingReader&&) noexcept;

    // Its id is the directory's name, whatever the recording was first called (a copy, a moved one).
    const RecordingMeta& meta() const;
    const std::filesystem::path& directory() const;
    // Reads the whole stream, checking every frame. Throws E031/E032 on damage.
    std::vector<Event> read_all();
    // Checks every frame's header and payload checksum without decompressing it: damage of the stream,
    // found at the speed of reading it (`record list`). Throws E031 naming the byte, E032 (event 0).
    void check_frames();
    // Streams events in order; returns false at the end. Throws like read_all().
    bool next(Event& event);
    // Positions the stream so that next() returns event `index`. In a finished recording the frame index
    // of summary.hrec makes this read one frame, not every frame before it.
    void seek(uint64_t index);
    // Time, thread and kind of every event: from summary.hrec when it is usable, else by reading the
    // whole stream (throws like read_all()). Rewinds the stream; stays valid while the reader lives.
    const EventColumns& event_columns();
    // Writes the recorded copy of `file` to `destination` (at its position), checking it against its
    // SHA-256. Throws E031 when files.pack lacks it or holds other bytes; what was written is then no copy.
    void write_file_copy(const RecordedFile& file, int destination) const;

private:
    struct State;
    std::unique_ptr<State> state_;
};

} // namespace hermit
