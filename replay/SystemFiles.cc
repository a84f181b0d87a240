#include "SystemFiles.h"

#include "RecordedSyscalls.h"
#include "formats/Error.h"
#include "formats/RecordingStore.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/fanotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace hermit::replay {

namespace {

constexpr std::array<const char*, 6> kSystemDirectories = {"/usr", "/bin", "/sbin", "/lib", "/lib64", "/etc"};

bool same_mount_namespace(pid_t guest) {
    struct stat own {};
    struct stat guests {};
    const std::string theirs = "/proc/" + std::to_string(guest) + "/ns/mnt";
    return stat("/proc/self/ns/mnt", &own) == 0 && stat(theirs.c_str(), &guests) == 0 &&
           own.st_ino == guests.st_ino && own.st_dev == guests.st_dev;
}

// The id of the mount `fd` (or `path` from it) is on, and whether the file is that mount's root.
std::optional<std::pair<uint64_t, bool>> mount_of(int fd, const char* path) {
    struct statx status {};
    if (statx(fd, path, AT_EMPTY_PATH | AT_STATX_DONT_SYNC, STATX_MNT_ID, &status) != 0 ||
        (status.stx_mask & STATX_MNT_ID) == 0) {
        return std::nullopt;
    }
    return std::pair{status.stx_mnt_id, (status.stx_attributes & STATX_ATTR_MOUNT_ROOT) != 0};
}

std::string path_of_descriptor(int fd) {
    std::array<char, 4096> target{};
    const std::string link = "/proc/self/fd/" + std::to_string(fd);
    const ssize_t length = readlink(link.c_str(), target.data(), target.size() - 1);
    return length > 0 ? std::string(target.data(), static_cast<size_t>(length)) : std::string();
}

} // namespace

void SystemFileWatch::watch(pid_t guest) {
    if (same_mount_namespace(guest)) {
        spdlog::debug("guest {} shares hermit's mount namespace: system files are not watched", guest);
        return;
    }
    notifications_ =
        UniqueFd(fanotify_init(FAN_CLASS_NOTIF | FAN_CLOEXEC | FAN_NONBLOCK | FAN_UNLIMITED_QUEUE,
                               O_RDONLY | O_CLOEXEC | O_LARGEFILE));
    const int error = errno;
    if (notifications_.get() < 0) {
        spdlog::warn("cannot watch which system files the guest opens (fanotify: {}): the recording does "
                     "not hold them, and its replay sees them as they are then",
                     std::strerror(error));
        return;
    }
    const std::string root = "/proc/" + std::to_string(guest) + "/root";
    for (const char* directory : kSystemDirectories) {
        // A directory with a mount of its own (own_mounts()): hermit, outside the guest's namespace, sees
        // the paths of the files opened through it from that mount's root, so they are prefixed with it.
        if (const auto mount = mount_of(AT_FDCWD, (root + directory).c_str()); mount && mount->second) {
            mount_directories_[mount->first] = directory;
        }
        // The mount that holds the directory, as the guest's mount namespace has it; a missing directory
        // (no /lib64) has no files to open.
        const std::string path = root + directory;
        if (fanotify_mark(notifications_.get(), FAN_MARK_ADD | FAN_MARK_MOUNT, FAN_OPEN | FAN_CLOSE_WRITE,
                          AT_FDCWD, path.c_str()) != 0 &&
            errno != ENOENT) {
            spdlog::warn("cannot watch the guest's {} (fanotify_mark: {})", directory, std::strerror(errno));
        }
    }
}

std::vector<std::string> SystemFileWatch::own_mounts() {
    std::vector<std::string> directories;
    for (const char* directory : kSystemDirectories) {
        struct stat status {};
        if (lstat(directory, &status) == 0 && S_ISDIR(status.st_mode)) {
            directories.emplace_back(directory);
        }
    }
    return directories;
}

std::vector<SystemFile> SystemFileWatch::keep_opened(BlobStore& blobs) {
    std::map<std::string, SystemFile> opened;
    std::set<std::string> written;
    if (notifications_.get() < 0) {
        return {};
    }
    std::array<char, 64 * 1024> buffer{};
    for (;;) {
        const ssize_t length = read(notifications_.get(), buffer.data(), buffer.size());
        if (length <= 0) {
            break; // EAGAIN: every open of the guest, which is over, was read
        }
        auto* event = reinterpret_cast<fanotify_event_metadata*>(buffer.data());
        for (ssize_t left = length; FAN_EVENT_OK(event, left); event = FAN_EVENT_NEXT(event, left)) {
            if (event->fd < 0) {
                continue; // FAN_NOFD: the queue overflowed, which an unlimited queue does not
            }
            const UniqueFd file(event->fd);
            std::string path = path_of_descriptor(file.get());
            if (const auto mount = mount_of(file.get(), "");
                mount && mount_directories_.contains(mount->first)) {
                path = mount_directories_[mount->first] + path;
            }
            spdlog::trace("the guest opened {} (fanotify mask {:#x})", path, event->mask);
            struct stat status {};
            if (!is_stable_system_file(path) || fstat(file.get(), &status) != 0 || !S_ISREG(status.st_mode)) {
                continue;
            }
            if ((event->mask & FAN_CLOSE_WRITE) != 0) {
                written.insert(path);
            } else if (!opened.contains(path)) {
                // The file the guest opened, read now: renamed over or removed since, it is still this one.
                opened[path] =
                    SystemFile{path, blobs.keep(file.get(), status), static_cast<uint64_t>(status.st_size)};
            }
        }
    }
    std::vector<SystemFile> kept;
    for (auto& [path, file] : opened) {
        // A file the guest wrote is its output: the replay writes it again.
        if (!written.contains(path)) {
            kept.push_back(std::move(file));
        }
    }
    return kept;
}

BlobStore blobs_of_recording(const std::filesystem::path& directory) {
    std::error_code ignored;
    const std::filesystem::path beside = RecordingStore(directory.parent_path()).blobs_directory();
    return BlobStore(std::filesystem::is_directory(beside, ignored) ? beside
                                                                    : RecordingStore().blobs_directory());
}

std::vector<tracer::FileOverlay> changed_system_files(const RecordingMeta& meta, BlobStore& blobs) {
    std::vector<tracer::FileOverlay> overlays;
    for (const SystemFile& file : meta.system_files) {
        const UniqueFd now(open(file.path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
        struct stat status {};
        if (now.get() >= 0 && fstat(now.get(), &status) == 0 && S_ISREG(status.st_mode) &&
            blobs.digest(now.get(), status) == file.sha256) {
            continue;
        }
        if (!blobs.holds(file.sha256)) {
            throw Error(ErrorCode::ReplayUnsupported, meta.id,
                        fmt::format("{} changed since it was recorded, and the blob store {} lacks the "
                                    "recorded bytes (sha256 {})",
                                    file.path,
                                    blobs.path_of(file.sha256).parent_path().parent_path().string(),
                                    file.sha256));
        }
        spdlog::info("{} {} since it was recorded: the replay shows the recorded bytes", file.path,
                     now.get() < 0 ? "is gone" : "changed");
        overlays.push_back({blobs.path_of(file.sha256).string(), file.path});
    }
    return overlays;
}

} // namespace hermit::replay
