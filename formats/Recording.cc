#include "Recording.h"

#include "EventCodec.h"
#include "FileIo.h"
#include "FormatDamage.h"
#include "FrameCodec.h"
#include "FrameWriter.h"
#include "RecordingIndex.h"
#include "Sha256.h"

#include <capnp/message.h>
#include <capnp/serialize.h>
#include <fcntl.h>
#include <kj/exception.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <functional>
#include <set>
#include <stdexcept>
#include <system_error>
#include <tuple>
#include <utility>

namespace hermit {

namespace {

constexpr const char* kMetaFile = "meta.capnp.bin";
constexpr const char* kEventsFile = "events.hrec";
constexpr const char* kSummaryFile = "summary.hrec";
constexpr const char* kFilesPack = "files.pack";
// Bytes of a file copied per read, into and out of files.pack.
constexpr size_t kCopyChunk = 64 * 1024;
// The summary must fit one frame (13 bytes per event); longer recordings are written without it.
constexpr uint64_t kMaxSummaryEvents = kMaxUncompressedFrameBytes / 16;
// A frame is cut when either limit is reached. Small enough that the last frame, compressed when the
// guest is done, costs a recording little (1 MiB of a git add's events took 21 ms), large enough to be
// compressed, not stored (events serialize to more than estimated_size() says).
constexpr size_t kBatchMaxEvents = 4096;
constexpr size_t kBatchMaxBytes = 64u << 10;
// Metadata is small (argv, env, file list); anything larger is not ours.
constexpr uint64_t kMaxMetaBytes = 16u << 20;
// meta.capnp.bin ends with one word after the message: this magic and the CRC32 of the message, so that
// a damaged environment value, seed or path is an error, not a replay of something else.
constexpr std::array<uint8_t, 4> kMetaChecksumMagic = {'H', 'R', 'M', 'C'};
constexpr size_t kMetaChecksumBytes = 8;

uint32_t little_endian_u32(const uint8_t* in) {
    return uint32_t{in[0]} | uint32_t{in[1]} << 8 | uint32_t{in[2]} << 16 | uint32_t{in[3]} << 24;
}
constexpr int kMetaNestingLimit = 8;

// Rough serialized size of an event, to cut frames near kBatchMaxBytes without serializing twice.
size_t estimated_size(const Event& event) {
    size_t size = 64;
    if (const auto* syscall = std::get_if<SyscallEvent>(&event.payload)) {
        size += syscall->args.size() * 8;
        for (const auto& write : syscall->memory_writes) {
            size += 32 + write.data.size();
        }
    } else if (const auto* stdio = std::get_if<StdioEvent>(&event.payload)) {
        size += stdio->data.size();
    } else if (const auto* exec = std::get_if<ExecEvent>(&event.payload)) {
        size += exec->path.size() + exec->sha256.size();
        for (const auto& arg : exec->argv) {
            size += 16 + arg.size();
        }
    }
    return size;
}

// Through a temporary and a rename, so that a reader (or a hermit that died mid-write) never leaves a torn
// metadata file, only the previous one. Nothing of a recording is fdatasync'ed: what write() returned is in
// the page cache, which outlives a crash of the guest or of hermit, the failures a recording promises to
// survive (with at most the frame being filled lost). Surviving a crash of the whole machine would cost two
// disk flushes per recording, more than the rest of a short recording's own cost.
//
// The new file takes the old one's place by an exchange of the two names, and the old one is then unlinked:
// ext4 starts writing a file renamed over another to disk (auto_da_alloc), 0.2 ms per metadata update on
// this project's VMs, a flush the paragraph above says a recording does not need. The first write, and a
// file system without exchanges, rename.
void write_meta_atomically(const std::filesystem::path& directory, const RecordingMeta& meta) {
    const std::vector<uint8_t> bytes = meta_file_bytes(meta);
    const auto final_path = directory / kMetaFile;
    const auto temporary_path = directory / (std::string(kMetaFile) + ".tmp");
    {
        UniqueFd fd = create_private_file(temporary_path, meta.id, false);
        write_all(fd.get(), bytes, temporary_path, meta.id);
    }
    if (::renameat2(AT_FDCWD, temporary_path.c_str(), AT_FDCWD, final_path.c_str(), RENAME_EXCHANGE) == 0) {
        ::unlink(temporary_path.c_str());
    } else if (::rename(temporary_path.c_str(), final_path.c_str()) != 0) {
        throw_io_error(meta.id, final_path, errno);
    }
}

} // namespace

std::vector<uint8_t> meta_file_bytes(const RecordingMeta& meta) {
    capnp::MallocMessageBuilder message;
    encode_meta(meta, message.initRoot<schema::RecordingMeta>());
    auto words = capnp::messageToFlatArray(message);
    auto message_bytes = words.asBytes();
    std::vector<uint8_t> bytes(message_bytes.begin(), message_bytes.end());
    bytes.insert(bytes.end(), kMetaChecksumMagic.begin(), kMetaChecksumMagic.end());
    const uint32_t checksum = lzma_crc32(message_bytes.begin(), message_bytes.size(), 0);
    for (int shift = 0; shift < 32; shift += 8) {
        bytes.push_back(static_cast<uint8_t>(checksum >> shift));
    }
    return bytes;
}

struct RecordingWriter::State {
    std::filesystem::path directory;
    RecordingMeta meta;
    std::optional<FrameWriter> frame_writer;
    std::vector<Event> pending;
    size_t pending_bytes = 0;
    uint64_t written_events = 0; // handed to the frame writer
    std::set<int32_t> threads;
    bool finished = false;
    EventColumnsBuilder summary;
    // Files were added since the metadata was last written. The file list reaches the disk before the
    // next frame, not at every add_file (that rewrote the whole list per copy, O(n^2) over a recording):
    // a file is added before the events that use it are appended, so every frame on disk finds its files
    // in the metadata on disk, and a recording whose hermit died keeps the files of its last frame.
    bool meta_outdated = false;
    // files.pack, created at the first copy. Its first pack_bytes bytes are the listed copies, and its
    // descriptor is positioned there: a copy is appended, and given back when it was not needed.
    UniqueFd pack_fd;
    uint64_t pack_bytes = 0;
    std::vector<uint8_t> copy_buffer;

    std::filesystem::path events_path() const { return directory / kEventsFile; }
    std::filesystem::path pack_path() const { return directory / kFilesPack; }

    // Appends the bytes of `host_path` to files.pack; returns their size and digest.
    std::pair<uint64_t, std::string> append_to_pack(const std::filesystem::path& host_path) {
        if (pack_fd.get() < 0) {
            pack_fd = create_private_file(pack_path(), meta.id, true);
        }
        UniqueFd in = open_for_reading(host_path, meta.id);
        copy_buffer.resize(kCopyChunk);
        Sha256 digest;
        uint64_t size = 0;
        try {
            // Until a read of 0 bytes: a file whose size reads as 0 may still have contents.
            while (const size_t got = read_at(in.get(), copy_buffer, size, host_path, meta.id)) {
                const std::span<const uint8_t> chunk(copy_buffer.data(), got);
                digest.update(chunk);
                write_all(pack_fd.get(), chunk, pack_path(), meta.id);
                size += got;
                if (got < copy_buffer.size()) {
                    break; // read_at stops short only where a read gave 0 bytes
                }
            }
        } catch (...) {
            give_back_pack_tail();
            throw;
        }
        return {size, digest.hex_digest()};
    }

    // Cuts files.pack back to its listed copies.
    void give_back_pack_tail() {
        if (::ftruncate(pack_fd.get(), static_cast<off_t>(pack_bytes)) != 0 ||
            ::lseek(pack_fd.get(), static_cast<off_t>(pack_bytes), SEEK_SET) < 0) {
            throw_io_error(meta.id, pack_path(), errno);
        }
    }

    // The write of the metadata when it changed since it was last written, to run before the next frame
    // (on the frame writer's thread: encoding and writing it took the tracer 0.1-0.35 ms here); else empty.
    std::function<void()> take_meta_write() {
        if (!std::exchange(meta_outdated, false)) {
            return {};
        }
        return [directory = directory, meta = meta] { write_meta_atomically(directory, meta); };
    }

    void write_pending_frame() {
        if (pending.empty() && !meta_outdated) {
            return;
        }
        const uint64_t count = pending.size();
        frame_writer->submit(written_events, std::exchange(pending, {}), take_meta_write());
        written_events += count;
        pending_bytes = 0;
    }

    // Written in place, without a temporary and a rename: it is derived data, and a reader ignores a summary
    // that is cut short (its frame does not check) or that describes another events.hrec.
    void write_summary() {
        if (written_events > kMaxSummaryEvents) {
            return;
        }
        RecordingIndex index{frame_writer->file_bytes(), frame_writer->frames(), summary.take()};
        const auto frame = FrameEncoder().encode(encode_recording_index(index));
        const auto path = directory / kSummaryFile;
        UniqueFd fd = create_private_file(path, meta.id, false);
        write_all(fd.get(), frame, path, meta.id);
    }
};

RecordingWriter::RecordingWriter(std::filesystem::path directory, RecordingMeta meta)
    : state_(std::make_unique<State>()) {
    state_->directory = std::move(directory);
    state_->meta = std::move(meta);
    auto& state = *state_;
    if (state.meta.id.empty()) {
        state.meta.id = state.directory.filename().string();
    }
    state.meta.format_version = schema::FORMAT_VERSION;
    state.meta.finished = false;
    state.meta.event_count = 0;
    create_private_directory(state.directory, state.meta.id);
    if (std::filesystem::exists(state.directory / kMetaFile)) {
        throw Error(ErrorCode::RecordingIo, state.meta.id,
                    fmt::format("{} already holds a recording", state.directory.string()));
    }
    state.frame_writer.emplace(create_private_file(state.events_path(), state.meta.id, true),
                               state.events_path(), state.meta.id);
    state.meta_outdated = true;
    state.write_pending_frame();
}

RecordingWriter::~RecordingWriter() {
    if (state_ && !state_->finished) {
        try {
            flush();
        } catch (const std::exception&) {
            // A destructor cannot report; the reader will see an unfinished recording without this batch.
        }
    }
}

void RecordingWriter::append(Event event) {
    auto& state = *state_;
    if (state.finished) {
        throw std::logic_error("RecordingWriter::append after finish()");
    }
    state.pending_bytes += estimated_size(event);
    state.threads.insert(event.tid);
    if (state.written_events + state.pending.size() < kMaxSummaryEvents) {
        state.summary.add(event);
    }
    state.pending.push_back(std::move(event));
    if (state.pending.size() >= kBatchMaxEvents || state.pending_bytes >= kBatchMaxBytes) {
        state.write_pending_frame();
    }
}

RecordedFile RecordingWriter::add_file(const std::string& guest_path, const std::filesystem::path& host_path,
                                       bool only_read) {
    auto& state = *state_;
    // Copied and digested in one pass (a recording copies every file its guest reads), then kept only when
    // the pack does not hold the same bytes already.
    RecordedFile entry{guest_path, "", 0, state.pack_bytes, only_read};
    std::tie(entry.size, entry.sha256) = state.append_to_pack(host_path);
    const auto& files = state.meta.files;
    const auto same_bytes = std::find_if(
        files.begin(), files.end(), [&](const RecordedFile& known) { return known.sha256 == entry.sha256; });
    if (same_bytes == files.end()) {
        state.pack_bytes += entry.size;
    } else {
        state.give_back_pack_tail();
        const auto same_file = std::find_if(files.begin(), files.end(), [&](const RecordedFile& known) {
            return known.path == entry.path && known.sha256 == entry.sha256;
        });
        if (same_file != files.end()) {
            if (!only_read) {
                mark_written(guest_path);
            }
            return *same_file;
        }
        entry.offset = same_bytes->offset;
    }
    // The copy is complete on disk before the metadata that lists it (written with the next frame), so a
    // copy cut short by a crash is never read.
    state.meta.files.push_back(entry);
    state.meta_outdated = true;
    return entry;
}

void RecordingWriter::mark_written(const std::string& guest_path) {
    for (RecordedFile& file : state_->meta.files) {
        if (file.path == guest_path && file.only_read) {
            file.only_read = false;
            state_->meta_outdated = true;
        }
    }
}

void RecordingWriter::flush() {
    state_->write_pending_frame();
    state_->frame_writer->drain();
}

void RecordingWriter::set_system_files(std::vector<SystemFile> files) {
    state_->meta.system_files = std::move(files);
}

void RecordingWriter::finish(int32_t exit_status, uint64_t guest_duration_ns) {
    auto& state = *state_;
    if (state.finished) {
        throw std::logic_error("RecordingWriter::finish called twice");
    }
    state.meta.finished = true;
    state.meta.exit_status = exit_status;
    state.meta.event_count = state.written_events + state.pending.size();
    state.meta.thread_count = static_cast<uint32_t>(state.threads.size());
    state.meta.guest_duration_ns = guest_duration_ns;
    // Written before the last frame, as every update is: had hermit died before that frame reached the
    // disk, the reader would find a finished recording short of events and report the truncation.
    state.meta_outdated = true;
    const uint64_t count = state.pending.size();
    state.frame_writer->finish(state.written_events, std::exchange(state.pending, {}),
                               state.take_meta_write());
    state.written_events += count;
    state.write_summary();
    state.finished = true;
}

uint64_t RecordingWriter::event_count() const {
    return state_->written_events + state_->pending.size();
}

const std::filesystem::path& RecordingWriter::directory() const {
    return state_->directory;
}

// ---------------------------------------------------------------------------------------------------------

namespace {

RecordingMeta read_meta(const std::filesystem::path& directory, const std::string& label) {
    std::error_code error;
    if (!std::filesystem::is_directory(directory, error)) {
        throw Error(ErrorCode::RecordingNotFound, label);
    }
    const auto path = directory / kMetaFile;
    UniqueFd fd = open_for_reading(path, label);
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0) {
        throw_io_error(label, path, errno);
    }
    const auto size = static_cast<uint64_t>(status.st_size);
    if (size <= kMetaChecksumBytes || size > kMaxMetaBytes || size % sizeof(capnp::word) != 0) {
        throw Error(ErrorCode::RecordingCorrupt, label,
                    fmt::format("{} has an invalid size of {} bytes", kMetaFile, size));
    }
    auto words = kj::heapArray<capnp::word>(size / sizeof(capnp::word));
    auto bytes = words.asBytes();
    if (read_at(fd.get(), std::span<uint8_t>(bytes.begin(), bytes.size()), 0, path, label) != size) {
        throw Error(ErrorCode::RecordingCorrupt, label,
                    fmt::format("{} changed while it was read", kMetaFile));
    }
    const uint8_t* trailer = bytes.begin() + size - kMetaChecksumBytes;
    const bool has_checksum = std::equal(kMetaChecksumMagic.begin(), kMetaChecksumMagic.end(), trailer);
    if (has_checksum &&
        little_endian_u32(trailer + 4) != lzma_crc32(bytes.begin(), size - kMetaChecksumBytes, 0)) {
        throw Error(ErrorCode::RecordingCorrupt, label, fmt::format("{} fails its checksum", kMetaFile));
    }
    capnp::ReaderOptions options;
    options.traversalLimitInWords = words.size() * 2 + 1024;
    options.nestingLimit = kMetaNestingLimit;
    try {
        // Without its trailer the file may be an older format's, whose version is then what to report.
        capnp::FlatArrayMessageReader reader(
            has_checksum ? words.asPtr().slice(0, words.size() - 1) : words.asPtr(), options);
        auto root = reader.getRoot<schema::RecordingMeta>();
        if (root.getFormatVersion() != schema::FORMAT_VERSION) {
            throw Error(ErrorCode::RecordingVersion, label, root.getFormatVersion(), schema::FORMAT_VERSION);
        }
        if (!has_checksum) {
            throw Error(ErrorCode::RecordingCorrupt, label, fmt::format("{} lacks its checksum", kMetaFile));
        }
        return decode_meta(root);
    } catch (const kj::Exception& exception) {
        throw Error(ErrorCode::RecordingCorrupt, label,
                    fmt::format("{} is malformed: {}", kMetaFile, exception.getDescription().cStr()));
    } catch (const FormatDamage& damage) {
        throw Error(ErrorCode::RecordingCorrupt, label,
                    fmt::format("{} is malformed: {}", kMetaFile, damage.what()));
    }
}

} // namespace

struct RecordingReader::State {
    std::filesystem::path directory;
    std::string label;
    RecordingMeta meta;
    UniqueFd events_fd;
    // Frames found so far, in order; the stream is scanned lazily.
    std::vector<FrameLocation> frames;
    uint64_t end_offset_of_last_frame = 0;
    bool reached_end = false;
    // The frame whose events are loaded, and the position of the next event within it.
    size_t loaded_frame = SIZE_MAX;
    std::vector<Event> batch;
    size_t position_in_batch = 0;
    // summary.hrec, once looked at: its columns when it was usable (then `frames` came from it too).
    bool summary_file_checked = false;
    std::optional<EventColumns> summary;

    std::filesystem::path events_path() const { return directory / kEventsFile; }

    uint64_t scanned_event_total() const {
        return frames.empty() ? 0 : frames.back().first_index + frames.back().event_count;
    }

    // Reads and validates the frame at `offset`; returns false on a clean end of the stream. `events`
    // null: only the checksums are checked (the payload is not decompressed).
    bool read_frame(uint64_t offset, uint64_t first_index, std::vector<Event>* events,
                    uint64_t& next_offset) {
        std::array<uint8_t, kFrameHeaderSize> header_bytes{};
        size_t got = read_at(events_fd.get(), header_bytes, offset, events_path(), label);
        if (got == 0) {
            return false;
        }
        if (got < header_bytes.size()) {
            throw Error(ErrorCode::RecordingTruncated, label, first_index);
        }
        try {
            FrameHeader header = parse_frame_header(header_bytes);
            std::vector<uint8_t> compressed(header.compressed_length);
            if (read_at(events_fd.get(), compressed, offset + kFrameHeaderSize, events_path(), label) !=
                compressed.size()) {
                throw Error(ErrorCode::RecordingTruncated, label, first_index);
            }
            if (events != nullptr) {
                *events = decode_batch(decode_frame_payload(header, compressed), first_index);
            } else {
                check_frame_payload(header, compressed);
            }
            next_offset = offset + kFrameHeaderSize + header.compressed_length;
            return true;
        } catch (const FormatDamage& damage) {
            if (damage.kind() == FormatDamage::Kind::UnsupportedVersion) {
                throw Error(ErrorCode::RecordingVersion, label, damage.found_version(),
                            schema::FORMAT_VERSION);
            }
            const std::string event = events != nullptr ? fmt::format(" (event {})", first_index) : "";
            throw Error(ErrorCode::RecordingCorrupt, label,
                        fmt::format("{} at byte {}{}: {}", kEventsFile, offset, event, damage.what()));
        }
    }

    // Makes frame `index` the loaded one, scanning forward as needed; false if the stream has fewer frames.
    bool load_frame(size_t index) {
        if (index == loaded_frame) {
            return true;
        }
        while (index >= frames.size()) {
            if (reached_end) {
                return false;
            }
            std::vector<Event> events;
            uint64_t next_offset = 0;
            const uint64_t offset = end_offset_of_last_frame;
            const uint64_t first_index = scanned_event_total();
            if (!read_frame(offset, first_index, &events, next_offset)) {
                reached_end = true;
                return false;
            }
            frames.push_back(FrameLocation{offset, first_index, events.size()});
            end_offset_of_last_frame = next_offset;
            batch = std::move(events);
            loaded_frame = frames.size() - 1;
        }
        if (index != loaded_frame) {
            uint64_t next_offset = 0;
            const auto& frame = frames[index];
            if (!read_frame(frame.offset, frame.first_index, &batch, next_offset) ||
                batch.size() != frame.event_count) {
                throw Error(ErrorCode::RecordingCorrupt, label,
                            fmt::format("{} changed while it was read", kEventsFile));
            }
            loaded_frame = index;
        }
        return true;
    }

    size_t frame_of_event(uint64_t index) const {
        auto after = std::upper_bound(
            frames.begin(), frames.end(), index,
            [](uint64_t value, const FrameLocation& frame) { return value < frame.first_index; });
        return static_cast<size_t>(after - frames.begin()) - 1;
    }

    // Takes the frame index and the summary from summary.hrec when it describes this events.hrec (same
    // size, and the frames scanned so far agree); otherwise leaves everything as it was.
    void use_summary_file() {
        if (summary_file_checked) {
            return;
        }
        summary_file_checked = true;
        const auto path = directory / kSummaryFile;
        std::error_code error;
        if (!meta.finished || !std::filesystem::exists(path, error)) {
            return;
        }
        try {
            UniqueFd fd = open_for_reading(path, label);
            std::array<uint8_t, kFrameHeaderSize> header_bytes{};
            if (read_at(fd.get(), header_bytes, 0, path, label) != header_bytes.size()) {
                return;
            }
            const FrameHeader header = parse_frame_header(header_bytes);
            std::vector<uint8_t> compressed(header.compressed_length);
            if (read_at(fd.get(), compressed, kFrameHeaderSize, path, label) != compressed.size()) {
                return;
            }
            RecordingIndex index = decode_recording_index(decode_frame_payload(header, compressed));
            struct stat status {};
            if (::fstat(events_fd.get(), &status) != 0 ||
                static_cast<uint64_t>(status.st_size) != index.events_file_bytes ||
                index.summary.event_count() != meta.event_count || index.frames.size() < frames.size()) {
                return;
            }
            for (size_t i = 0; i < frames.size(); ++i) {
                if (frames[i].offset != index.frames[i].offset ||
                    frames[i].event_count != index.frames[i].event_count) {
                    return;
                }
            }
            frames = std::move(index.frames);
            end_offset_of_last_frame = index.events_file_bytes;
            reached_end = true;
            summary = std::move(index.summary);
        } catch (const FormatDamage&) {
            // A damaged summary only costs a scan of events.hrec.
        } catch (const Error&) {
        }
    }

    // For a recording whose hermit died: count what the stream holds, stopping quietly at damage so the
    // metadata stays readable (read_all() still reports the damage).
    void recount_unfinished() {
        std::set<int32_t> threads;
        uint64_t last_time = 0;
        try {
            for (size_t frame = 0; load_frame(frame); ++frame) {
                for (const auto& event : batch) {
                    threads.insert(event.tid);
                    last_time = std::max(last_time, event.time);
                }
            }
        } catch (const Error&) {
            // Counted up to the damage; reading the events reports it.
        }
        meta.event_count = scanned_event_total();
        meta.thread_count = static_cast<uint32_t>(threads.size());
        meta.guest_duration_ns = last_time;
    }
};

RecordingReader::RecordingReader(std::filesystem::path directory) : state_(std::make_unique<State>()) {
    auto& state = *state_;
    state.directory = std::move(directory);
    state.label = state.directory.string();
    state.meta = read_meta(state.directory, state.label);
    // A recording is known by its directory: a copy or a moved one is named as the user names it.
    std::filesystem::path named = std::filesystem::absolute(state.directory).lexically_normal();
    if (named.filename().empty()) {
        named = named.parent_path(); // "dir/"
    }
    if (!named.filename().empty()) {
        state.meta.id = named.filename().string();
    }
    state.events_fd = open_for_reading(state.events_path(), state.label);
    if (!state.meta.finished) {
        state.recount_unfinished();
    }
    seek(0);
}

RecordingReader::~RecordingReader() = default;
RecordingReader::RecordingReader(RecordingReader&&) noexcept = default;

const RecordingMeta& RecordingReader::meta() const {
    return state_->meta;
}

const std::filesystem::path& RecordingReader::directory() const {
    return state_->directory;
}

std::vector<Event> RecordingReader::read_all() {
    seek(0);
    std::vector<Event> events;
    events.reserve(std::min<uint64_t>(state_->meta.event_count, 1u << 20));
    Event event;
    while (next(event)) {
        events.push_back(std::move(event));
    }
    if (state_->meta.finished && events.size() > state_->meta.event_count) {
        throw Error(ErrorCode::RecordingCorrupt, state_->label,
                    fmt::format("the metadata counts {} events but {} holds {}", state_->meta.event_count,
                                kEventsFile, events.size()));
    }
    return events;
}

bool RecordingReader::next(Event& event) {
    auto& state = *state_;
    while (state.loaded_frame == SIZE_MAX || state.position_in_batch >= state.batch.size()) {
        const size_t next_frame = state.loaded_frame == SIZE_MAX ? 0 : state.loaded_frame + 1;
        if (!state.load_frame(next_frame)) {
            // Whole frames missing at the end: the metadata of a finished recording knows how many.
            if (state.meta.finished && state.scanned_event_total() < state.meta.event_count) {
                throw Error(ErrorCode::RecordingTruncated, state.label, state.scanned_event_total());
            }
            return false;
        }
        state.position_in_batch = 0;
    }
    event = state.batch[state.position_in_batch++];
    return true;
}

void RecordingReader::check_frames() {
    // Frames are named by their byte offsets here: their event counts are inside the payloads.
    for (uint64_t offset = 0, next_offset = 0; state_->read_frame(offset, 0, nullptr, next_offset);) {
        offset = next_offset;
    }
}

void RecordingReader::seek(uint64_t index) {
    auto& state = *state_;
    if (index == 0 && state.loaded_frame != 0) {
        // Rewinding reads nothing yet, so opening a damaged stream fails only when events are read.
        state.loaded_frame = SIZE_MAX;
        state.batch.clear();
        state.position_in_batch = 0;
        return;
    }
    if (index >= state.scanned_event_total()) {
        state.use_summary_file();
    }
    while (index >= state.scanned_event_total() && !state.reached_end) {
        if (!state.load_frame(state.frames.size())) {
            break;
        }
    }
    if (index >= state.scanned_event_total()) {
        if (state.meta.finished && state.scanned_event_total() < state.meta.event_count &&
            index <= state.meta.event_count) {
            throw Error(ErrorCode::RecordingTruncated, state.label, state.scanned_event_total());
        }
        if (index > state.scanned_event_total()) {
            throw std::out_of_range(fmt::format("seek to event {} of a recording with {} events", index,
                                                state.scanned_event_total()));
        }
        // At the end: the next next() finds no further frame.
        if (!state.frames.empty()) {
            state.load_frame(state.frames.size() - 1);
            state.position_in_batch = state.batch.size();
        } else {
            state.loaded_frame = SIZE_MAX;
            state.batch.clear();
            state.position_in_batch = 0;
        }
        return;
    }
    const size_t frame = state.frame_of_event(index);
    state.load_frame(frame);
    state.position_in_batch = static_cast<size_t>(index - state.frames[frame].first_index);
}

const EventColumns& RecordingReader::event_columns() {
    auto& state = *state_;
    state.use_summary_file();
    if (!state.summary) {
        EventColumnsBuilder builder;
        builder.reserve(state.meta.event_count);
        for (size_t frame = 0; state.load_frame(frame); ++frame) {
            for (const Event& event : state.batch) {
                builder.add(event);
            }
        }
        if (state.meta.finished && state.scanned_event_total() < state.meta.event_count) {
            throw Error(ErrorCode::RecordingTruncated, state.label, state.scanned_event_total());
        }
        if (state.meta.finished && state.scanned_event_total() > state.meta.event_count) {
            throw Error(ErrorCode::RecordingCorrupt, state.label,
                        fmt::format("the metadata counts {} events but {} holds {}", state.meta.event_count,
                                    kEventsFile, state.scanned_event_total()));
        }
        state.summary = builder.take();
    }
    seek(0);
    return *state.summary;
}

void RecordingReader::write_file_copy(const RecordedFile& file, int destination) const {
    const std::string& label = state_->label;
    const auto pack = state_->directory / kFilesPack;
    const std::filesystem::path destination_path = "/proc/self/fd/" + std::to_string(destination);
    UniqueFd in(::open(pack.c_str(), O_RDONLY | O_CLOEXEC));
    if (in.get() < 0 && errno == ENOENT) {
        throw Error(ErrorCode::RecordingCorrupt, label,
                    fmt::format("{} is missing; it holds the copy of '{}'", kFilesPack, file.path));
    }
    if (in.get() < 0) {
        throw_io_error(label, pack, errno);
    }
    std::vector<uint8_t> buffer(kCopyChunk);
    Sha256 digest;
    for (uint64_t done = 0; done < file.size;) {
        const size_t wanted = static_cast<size_t>(std::min<uint64_t>(buffer.size(), file.size - done));
        const size_t got =
            read_at(in.get(), std::span(buffer.data(), wanted), file.offset + done, pack, label);
        if (got == 0) {
            throw Error(ErrorCode::RecordingCorrupt, label,
                        fmt::format("{} ends inside the copy of '{}'", kFilesPack, file.path));
        }
        const std::span<const uint8_t> chunk(buffer.data(), got);
        digest.update(chunk);
        write_all(destination, chunk, destination_path, label);
        done += got;
    }
    if (digest.hex_digest() != file.sha256) {
        throw Error(ErrorCode::RecordingCorrupt, label,
                    fmt::format("the copy of '{}' in {} does not match its SHA-256", file.path, kFilesPack));
    }
}

} // namespace hermit
