#include "RecordingPack.h"

#include "BlobStore.h"
#include "Error.h"
#include "Recording.h"

#include <fcntl.h>
#include <lzma.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <set>
#include <vector>

namespace hermit {

namespace {

constexpr size_t kBlock = 512;
constexpr std::string_view kBlobsDirectory = ".blobs/";

// One xz stream written to a file; E038 on any failure.
class XzFileWriter {
public:
    explicit XzFileWriter(const std::filesystem::path& path) : path_(path), out_(path, std::ios::binary) {
        if (!out_ || lzma_easy_encoder(&stream_, 6, LZMA_CHECK_CRC64) != LZMA_OK) {
            fail("cannot create it");
        }
    }
    ~XzFileWriter() { lzma_end(&stream_); }

    void write(const uint8_t* bytes, size_t size) { code(bytes, size, LZMA_RUN); }
    void finish() {
        code(nullptr, 0, LZMA_FINISH);
        out_.flush();
        if (!out_) {
            fail(std::strerror(errno));
        }
    }

private:
    void code(const uint8_t* bytes, size_t size, lzma_action action) {
        stream_.next_in = bytes;
        stream_.avail_in = size;
        std::array<uint8_t, 1 << 16> buffer{};
        for (;;) {
            stream_.next_out = buffer.data();
            stream_.avail_out = buffer.size();
            const lzma_ret result = lzma_code(&stream_, action);
            if (result != LZMA_OK && result != LZMA_STREAM_END) {
                fail("compression failed");
            }
            out_.write(reinterpret_cast<const char*>(buffer.data()),
                       static_cast<std::streamsize>(buffer.size() - stream_.avail_out));
            if (!out_) {
                fail(std::strerror(errno));
            }
            if (result == LZMA_STREAM_END || (action == LZMA_RUN && stream_.avail_in == 0)) {
                return;
            }
        }
    }
    [[noreturn]] void fail(const std::string& reason) {
        throw Error(ErrorCode::PackUnwritable, path_.string(), reason);
    }

    std::filesystem::path path_;
    std::ofstream out_;
    lzma_stream stream_ = LZMA_STREAM_INIT;
};

// One xz stream read from a file; E036 on any failure.
class XzFileReader {
public:
    explicit XzFileReader(const std::filesystem::path& path) : path_(path), in_(path, std::ios::binary) {
        if (!in_) {
            fail(std::strerror(errno));
        }
        if (lzma_stream_decoder(&stream_, UINT64_MAX, 0) != LZMA_OK) {
            fail("cannot start decompressing");
        }
    }
    ~XzFileReader() { lzma_end(&stream_); }

    // Fills `out` whole; false at the end of the stream before any byte of it.
    bool read(uint8_t* out, size_t size) {
        stream_.next_out = out;
        stream_.avail_out = size;
        while (stream_.avail_out > 0) {
            if (stream_.avail_in == 0 && !in_.eof()) {
                in_.read(reinterpret_cast<char*>(input_.data()), static_cast<std::streamsize>(input_.size()));
                stream_.next_in = input_.data();
                stream_.avail_in = static_cast<size_t>(in_.gcount());
            }
            const lzma_ret result = lzma_code(&stream_, in_.eof() ? LZMA_FINISH : LZMA_RUN);
            if (result == LZMA_STREAM_END) {
                if (stream_.avail_out == size) {
                    return false;
                }
                fail("it ends inside a member");
            }
            if (result != LZMA_OK) {
                fail("it is not an xz file, or it is damaged");
            }
        }
        return true;
    }
    [[noreturn]] void fail(const std::string& reason) const {
        throw Error(ErrorCode::PackUnreadable, path_.string(), reason);
    }

private:
    std::filesystem::path path_;
    std::ifstream in_;
    lzma_stream stream_ = LZMA_STREAM_INIT;
    std::array<uint8_t, 1 << 16> input_{};
};

void put_octal(char* field, size_t width, uint64_t value) {
    std::snprintf(field, width, "%0*llo", static_cast<int>(width - 1),
                  static_cast<unsigned long long>(value));
}

// A ustar header for a regular file: names up to 100 bytes, or a prefix directory of up to 155 and a name.
std::array<uint8_t, kBlock> tar_header(const std::string& name, uint64_t size, bool executable) {
    std::array<uint8_t, kBlock> header{};
    char* h = reinterpret_cast<char*>(header.data());
    std::string prefix;
    std::string rest = name;
    if (rest.size() > 100) {
        const size_t slash = rest.rfind('/', 155);
        if (slash == std::string::npos || rest.size() - slash - 1 > 100) {
            throw Error(ErrorCode::PackUnwritable, name, "the name is too long for a tar archive");
        }
        prefix = rest.substr(0, slash);
        rest = rest.substr(slash + 1);
    }
    std::memcpy(h, rest.data(), rest.size());
    put_octal(h + 100, 8, executable ? 0755 : 0644);
    put_octal(h + 108, 8, 0);
    put_octal(h + 116, 8, 0);
    put_octal(h + 124, 12, size);
    put_octal(h + 136, 12, 0);
    h[156] = '0';
    std::memcpy(h + 257, "ustar", 6);
    std::memcpy(h + 263, "00", 2);
    std::memcpy(h + 345, prefix.data(), prefix.size());
    std::memset(h + 148, ' ', 8);
    unsigned checksum = 0;
    for (uint8_t byte : header) {
        checksum += byte;
    }
    std::snprintf(h + 148, 8, "%06o", checksum);
    return header;
}

void add_file(XzFileWriter& pack, const std::filesystem::path& file, const std::string& name) {
    std::ifstream in(file, std::ios::binary);
    std::error_code error;
    const uint64_t size = std::filesystem::file_size(file, error);
    if (!in || error) {
        throw Error(ErrorCode::RecordingIo, file.string(), error ? error.message() : std::strerror(errno));
    }
    const bool executable = (std::filesystem::status(file, error).permissions() &
                             std::filesystem::perms::owner_exec) != std::filesystem::perms::none;
    const auto header = tar_header(name, size, executable);
    pack.write(header.data(), header.size());
    std::vector<uint8_t> buffer(1 << 20);
    uint64_t left = size;
    while (left > 0) {
        const size_t chunk = static_cast<size_t>(std::min<uint64_t>(left, buffer.size()));
        if (!in.read(reinterpret_cast<char*>(buffer.data()), static_cast<std::streamsize>(chunk))) {
            throw Error(ErrorCode::RecordingIo, file.string(), "it changed while it was packed");
        }
        pack.write(buffer.data(), chunk);
        left -= chunk;
    }
    const std::array<uint8_t, kBlock> padding{};
    pack.write(padding.data(), (kBlock - size % kBlock) % kBlock);
}

struct Member {
    std::string name;
    uint64_t size = 0;
    bool executable = false;
};

std::optional<Member> read_header(XzFileReader& pack) {
    std::array<uint8_t, kBlock> header{};
    if (!pack.read(header.data(), header.size()) ||
        std::all_of(header.begin(), header.end(), [](uint8_t byte) { return byte == 0; })) {
        return std::nullopt; // the end: two zero blocks (or none)
    }
    const char* h = reinterpret_cast<const char*>(header.data());
    if (std::memcmp(h + 257, "ustar", 5) != 0 || (h[156] != '0' && h[156] != '\0')) {
        pack.fail("a member is not a regular file of a POSIX tar archive");
    }
    Member member;
    const std::string prefix(h + 345, strnlen(h + 345, 155));
    member.name = std::string(h, strnlen(h, 100));
    if (!prefix.empty()) {
        member.name = prefix + "/" + member.name;
    }
    member.size = std::strtoull(std::string(h + 124, strnlen(h + 124, 12)).c_str(), nullptr, 8);
    member.executable =
        (std::strtoul(std::string(h + 100, strnlen(h + 100, 8)).c_str(), nullptr, 8) & 0111) != 0;
    return member;
}

// Copies the member's bytes (and its padding) from the pack into the new file `path`.
void extract(XzFileReader& pack, const Member& member, const std::filesystem::path& path) {
    std::filesystem::create_directories(path.parent_path());
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    std::vector<uint8_t> buffer(1 << 20);
    const uint64_t padded = (member.size + kBlock - 1) / kBlock * kBlock;
    for (uint64_t done = 0; done < padded;) {
        const size_t chunk = static_cast<size_t>(std::min<uint64_t>(padded - done, buffer.size()));
        if (!pack.read(buffer.data(), chunk)) {
            pack.fail("it ends inside " + member.name);
        }
        const uint64_t data = std::min<uint64_t>(chunk, member.size > done ? member.size - done : 0);
        out.write(reinterpret_cast<const char*>(buffer.data()), static_cast<std::streamsize>(data));
        done += chunk;
    }
    if (!out.flush()) {
        throw Error(ErrorCode::RecordingIo, path.string(), std::strerror(errno));
    }
    std::filesystem::permissions(path, member.executable ? std::filesystem::perms(0755)
                                                         : std::filesystem::perms(0644));
}

bool safe_relative(const std::string& name) {
    const std::filesystem::path path(name);
    return !name.empty() && path.is_relative() &&
           std::none_of(path.begin(), path.end(),
                        [](const std::filesystem::path& part) { return part == ".." || part == "."; });
}

} // namespace

void pack_recording(const RecordingStore& store, const std::string& id_or_path,
                    const std::filesystem::path& output) {
    const std::filesystem::path directory = store.resolve(id_or_path);
    const RecordingReader reader(directory);
    const std::string id = reader.meta().id;
    const std::filesystem::path partial = output.string() + ".partial";
    try {
        XzFileWriter pack(partial);
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::recursive_directory_iterator(directory)) {
            if (entry.is_regular_file()) {
                files.push_back(entry.path());
            }
        }
        std::sort(files.begin(), files.end());
        for (const std::filesystem::path& file : files) {
            add_file(pack, file, id + "/" + file.lexically_relative(directory).string());
        }
        const BlobStore blobs(store.blobs_directory());
        std::set<std::string> packed;
        for (const SystemFile& system_file : reader.meta().system_files) {
            if (packed.insert(system_file.sha256).second) {
                add_file(pack, blobs.path_of(system_file.sha256),
                         std::string(kBlobsDirectory) + system_file.sha256.substr(0, 2) + "/" +
                             system_file.sha256);
            }
        }
        const std::array<uint8_t, 2 * kBlock> end{};
        pack.write(end.data(), end.size());
        pack.finish();
    } catch (...) {
        std::error_code ignored;
        std::filesystem::remove(partial, ignored);
        throw;
    }
    std::error_code error;
    std::filesystem::rename(partial, output, error);
    if (error) {
        std::filesystem::remove(partial, error);
        throw Error(ErrorCode::PackUnwritable, output.string(), error.message());
    }
}

std::string unpack_recording(RecordingStore& store, const std::filesystem::path& input) {
    XzFileReader pack(input);
    std::filesystem::create_directories(store.root());
    // Unpacked next to the recordings, under a name `list` skips, and renamed once it reads back.
    const std::filesystem::path staging = store.root() / (".unpack-" + std::to_string(getpid()));
    std::filesystem::remove_all(staging);
    struct Staging {
        std::filesystem::path path;
        ~Staging() {
            std::error_code ignored;
            std::filesystem::remove_all(path, ignored);
        }
    } cleanup{staging};
    BlobStore blobs(store.blobs_directory());
    std::string id;
    while (std::optional<Member> member = read_header(pack)) {
        if (!safe_relative(member->name)) {
            pack.fail("it names '" + member->name + "', outside a recording");
        }
        const std::filesystem::path staged = staging / member->name;
        extract(pack, *member, staged);
        if (member->name.starts_with(kBlobsDirectory)) {
            const std::string sha256 = staged.filename().string();
            const int fd = open(staged.c_str(), O_RDONLY | O_CLOEXEC);
            struct stat status {};
            const bool kept = fd >= 0 && fstat(fd, &status) == 0 && blobs.keep(fd, status) == sha256;
            if (fd >= 0) {
                close(fd);
            }
            if (!kept) {
                pack.fail("the system file " + sha256 + " holds other bytes than its name says");
            }
            continue;
        }
        const std::string first = std::filesystem::path(member->name).begin()->string();
        if (id.empty()) {
            id = first;
        } else if (first != id) {
            pack.fail("it holds more than one recording ('" + id + "' and '" + first + "')");
        }
    }
    if (id.empty()) {
        pack.fail("it holds no recording");
    }
    const std::filesystem::path destination = store.root() / id;
    if (std::filesystem::exists(destination)) {
        throw Error(ErrorCode::RecordingExists, id, store.root().string());
    }
    try {
        RecordingReader(staging / id).read_all();
    } catch (const Error& error) {
        pack.fail(std::string("its recording does not read back: ") + error.what());
    }
    std::filesystem::rename(staging / id, destination);
    store.mark_latest(id);
    return id;
}

} // namespace hermit
