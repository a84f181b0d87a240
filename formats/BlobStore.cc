#include "BlobStore.h"

#include "Error.h"
#include "Sha256.h"

#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <fstream>
#include <sstream>
#include <utility>
#include <vector>

namespace hermit {

namespace {

constexpr const char* kIndexName = "index";
constexpr const char* kStoreName = "blob store";

int64_t nanoseconds(const struct timespec& time) {
    return static_cast<int64_t>(time.tv_sec) * 1'000'000'000 + time.tv_nsec;
}

} // namespace

BlobStore::BlobStore(std::filesystem::path directory) : directory_(std::move(directory)) {}

BlobStore::Identity BlobStore::identity_of(const struct stat& status) {
    return {status.st_dev, status.st_ino, status.st_size, nanoseconds(status.st_mtim),
            nanoseconds(status.st_ctim)};
}

std::filesystem::path BlobStore::path_of(const std::string& sha256) const {
    return directory_ / sha256.substr(0, 2) / sha256;
}

bool BlobStore::holds(const std::string& sha256) const {
    return sha256.size() > 2 && access(path_of(sha256).c_str(), F_OK) == 0;
}

void BlobStore::load_index() {
    if (std::exchange(index_loaded_, true)) {
        return;
    }
    std::ifstream index(directory_ / kIndexName);
    std::string line;
    while (std::getline(index, line)) {
        std::istringstream fields(line);
        uint64_t device = 0, inode = 0;
        int64_t size = 0, modified = 0, changed = 0;
        std::string sha256;
        // A line torn by a crash is skipped: its file is only hashed again.
        if (fields >> device >> inode >> size >> modified >> changed >> sha256 && sha256.size() == 64) {
            known_[{static_cast<dev_t>(device), static_cast<ino_t>(inode), static_cast<off_t>(size), modified,
                    changed}] = sha256;
        }
    }
}

void BlobStore::remember(const Identity& identity, const std::string& sha256) {
    known_[identity] = sha256;
    create_private_directory(directory_, kStoreName);
    const std::string line =
        fmt::format("{} {} {} {} {} {}\n", std::get<0>(identity), std::get<1>(identity),
                    std::get<2>(identity), std::get<3>(identity), std::get<4>(identity), sha256);
    // One write with O_APPEND: lines of hermits recording at the same time do not interleave.
    const UniqueFd index(
        open((directory_ / kIndexName).c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600));
    if (index.get() < 0 ||
        write(index.get(), line.data(), line.size()) != static_cast<ssize_t>(line.size())) {
        throw_io_error(kStoreName, directory_ / kIndexName, errno);
    }
}

std::string BlobStore::digest(int fd, const struct stat& status) {
    load_index();
    const Identity identity = identity_of(status);
    if (const auto found = known_.find(identity); found != known_.end()) {
        return found->second;
    }
    Sha256 sha;
    std::vector<uint8_t> buffer(1 << 20);
    for (uint64_t offset = 0;;) {
        const size_t count = read_at(fd, buffer, offset, "/proc/self/fd/" + std::to_string(fd), kStoreName);
        if (count == 0) {
            break;
        }
        sha.update(std::span(buffer.data(), count));
        offset += count;
    }
    const std::string sha256 = sha.hex_digest();
    remember(identity, sha256);
    return sha256;
}

std::string BlobStore::keep(int fd, const struct stat& status) {
    load_index();
    const Identity identity = identity_of(status);
    const bool executable = (status.st_mode & 0111) != 0;
    if (const auto found = known_.find(identity); found != known_.end() && holds(found->second)) {
        return found->second;
    }
    // Copied and hashed in one pass into a private file, which then takes the digest's name.
    create_private_directory(directory_, kStoreName);
    const std::filesystem::path copy =
        directory_ / fmt::format("incoming.{}.{}", getpid(), std::get<1>(identity));
    Sha256 sha;
    {
        const UniqueFd written = create_private_file(copy, kStoreName, false);
        std::vector<uint8_t> buffer(1 << 20);
        for (uint64_t offset = 0;;) {
            const size_t count =
                read_at(fd, buffer, offset, "/proc/self/fd/" + std::to_string(fd), kStoreName);
            if (count == 0) {
                break;
            }
            write_all(written.get(), std::span(buffer.data(), count), copy, kStoreName);
            sha.update(std::span(buffer.data(), count));
            offset += count;
        }
        // Bound over the original on replay: a program must stay executable. The directory is private.
        fchmod(written.get(), executable ? 0755 : 0644);
    }
    const std::string sha256 = sha.hex_digest();
    const std::filesystem::path blob = path_of(sha256);
    std::error_code ignored;
    if (holds(sha256)) {
        std::filesystem::remove(copy, ignored);
        if (executable) {
            chmod(blob.c_str(), 0755);
        }
    } else {
        create_private_directory(blob.parent_path(), kStoreName);
        if (rename(copy.c_str(), blob.c_str()) != 0) {
            const int error = errno;
            std::filesystem::remove(copy, ignored);
            throw_io_error(kStoreName, blob, error);
        }
    }
    remember(identity, sha256);
    return sha256;
}

size_t BlobStore::remove_all_but(const std::set<std::string>& referenced) {
    size_t removed = 0;
    std::error_code error;
    for (const auto& group : std::filesystem::directory_iterator(directory_, error)) {
        if (!group.is_directory() || group.path().filename().string().size() != 2) {
            continue;
        }
        for (const auto& blob : std::filesystem::directory_iterator(group.path(), error)) {
            if (!referenced.contains(blob.path().filename().string()) &&
                std::filesystem::remove(blob.path(), error)) {
                ++removed;
            }
        }
    }
    return removed;
}

} // namespace hermit
