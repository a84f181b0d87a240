#include "ScratchDirectory.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <ctime>
#include <system_error>
#include <utility>

namespace hermit::tracer {

namespace {

// The directories named `prefix`-* in `parent` that this user made, that are old enough and that no
// process locks: each is a killed hermit's.
void remove_abandoned(const std::filesystem::path& parent, const std::string& prefix) {
    std::error_code error;
    const std::string name_start = prefix + "-";
    for (const auto& entry : std::filesystem::directory_iterator(parent, error)) {
        if (!entry.path().filename().string().starts_with(name_start)) {
            continue;
        }
        const UniqueFd directory(open(entry.path().c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        struct stat info {};
        if (directory.get() < 0 || fstat(directory.get(), &info) != 0 || info.st_uid != geteuid() ||
            std::time(nullptr) - info.st_mtime < ScratchDirectory::kAbandonedAfterSeconds ||
            flock(directory.get(), LOCK_EX | LOCK_NB) != 0) {
            continue;
        }
        std::filesystem::remove_all(entry.path(), error);
    }
}

// $TMPDIR/hermit-<uid>, made if missing: a directory that only this user can change, where a sweep lists
// hermit's directories only, however many files $TMPDIR holds. Empty when another user made the name.
std::filesystem::path own_directory(const std::filesystem::path& temporary) {
    const std::filesystem::path own = temporary / ("hermit-" + std::to_string(geteuid()));
    mkdir(own.c_str(), 0711); // the guest, maybe another user in its namespace, only passes through
    struct stat info {};
    if (lstat(own.c_str(), &info) != 0 || !S_ISDIR(info.st_mode) || info.st_uid != geteuid() ||
        (info.st_mode & (S_IWGRP | S_IWOTH)) != 0) {
        return {};
    }
    if ((info.st_mode & 0711) != 0711) {
        chmod(own.c_str(), 0711); // made under a umask that kept others out
    }
    return own;
}

} // namespace

ScratchDirectory::ScratchDirectory(std::string prefix, std::filesystem::perms permissions)
    : prefix_(std::move(prefix)), permissions_(permissions) {}

ScratchDirectory::~ScratchDirectory() {
    if (!path_.empty()) {
        std::error_code ignored;
        std::filesystem::remove_all(path_, ignored);
    }
}

const std::filesystem::path& ScratchDirectory::path() {
    if (!path_.empty()) {
        return path_;
    }
    std::error_code error;
    const std::filesystem::path temporary = std::filesystem::temp_directory_path(error);
    if (error) {
        errno = error.value();
        return path_;
    }
    std::string pattern;
    if (const std::filesystem::path own = own_directory(temporary); !own.empty()) {
        remove_abandoned(own, prefix_);
        pattern = (own / (prefix_ + "-XXXXXX")).string();
    } else {
        pattern = (temporary / ("hermit-" + prefix_ + "-XXXXXX")).string(); // unswept
    }
    if (mkdtemp(pattern.data()) == nullptr) {
        return path_;
    }
    lock_ = UniqueFd(open(pattern.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (lock_.get() < 0 || flock(lock_.get(), LOCK_EX) != 0) {
        const int cause = errno;
        std::filesystem::remove(pattern, error);
        errno = cause;
        return path_;
    }
    if (permissions_ != std::filesystem::perms::owner_all) {
        std::filesystem::permissions(pattern, permissions_, error);
    }
    if (error) {
        std::filesystem::remove(pattern, error);
        errno = EPERM;
        return path_;
    }
    path_ = pattern;
    return path_;
}

} // namespace hermit::tracer
