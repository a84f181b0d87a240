#include "StatRewriter.h"

#include <sys/sysmacros.h>

#include <algorithm>

namespace hermit::tracer::virt {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;

int64_t ns_of(const timespec& time) {
    return static_cast<int64_t>(time.tv_sec) * kNsPerSecond + time.tv_nsec;
}

int64_t ns_of(const statx_timestamp& time) {
    return time.tv_sec * kNsPerSecond + time.tv_nsec;
}

timespec timespec_of(int64_t ns) {
    return {static_cast<time_t>(ns / kNsPerSecond), static_cast<long>(ns % kNsPerSecond)};
}

statx_timestamp statx_timestamp_of(int64_t ns) {
    return {ns / kNsPerSecond, static_cast<uint32_t>(ns % kNsPerSecond), 0};
}

bool stored(mode_t mode) {
    return S_ISREG(mode) || S_ISDIR(mode) || S_ISLNK(mode);
}

} // namespace

void StatRewriter::rewrite(struct stat& status) const {
    const FileTimeSet shown = times_.shown(
        status.st_dev, status.st_ino,
        {ns_of(status.st_atim), ns_of(status.st_mtim), ns_of(status.st_ctim), 0}, stored(status.st_mode));
    status.st_ino = inodes_.virtual_inode(status.st_dev, status.st_ino);
    status.st_dev = InodeTable::kVirtualDevice;
    status.st_atim = timespec_of(shown.access_ns);
    status.st_mtim = timespec_of(shown.modify_ns);
    status.st_ctim = timespec_of(shown.change_ns);
    clock_.saw_file_time(latest_time(status));
}

void StatRewriter::rewrite(struct statx& status) const {
    const uint64_t device = makedev(status.stx_dev_major, status.stx_dev_minor);
    const bool has_birth = (status.stx_mask & STATX_BTIME) != 0;
    const FileTimeSet shown = times_.shown(device, status.stx_ino,
                                           {ns_of(status.stx_atime), ns_of(status.stx_mtime),
                                            ns_of(status.stx_ctime), has_birth ? ns_of(status.stx_btime) : 0},
                                           stored(status.stx_mode));
    if (status.stx_mask & STATX_INO) {
        status.stx_ino = inodes_.virtual_inode(device, status.stx_ino);
    }
    status.stx_dev_major = major(InodeTable::kVirtualDevice);
    status.stx_dev_minor = minor(InodeTable::kVirtualDevice);
    status.stx_atime = statx_timestamp_of(shown.access_ns);
    status.stx_mtime = statx_timestamp_of(shown.modify_ns);
    status.stx_ctime = statx_timestamp_of(shown.change_ns);
    status.stx_btime = has_birth ? statx_timestamp_of(shown.birth_ns) : statx_timestamp{};
    // The mount id numbers mounts in the order the host made them.
    status.stx_mnt_id = 1;
    clock_.saw_file_time(latest_time(status));
}

int64_t StatRewriter::latest_time(const struct stat& status) {
    if (S_ISDIR(status.st_mode)) {
        return 0;
    }
    return std::max({ns_of(status.st_atim), ns_of(status.st_mtim), ns_of(status.st_ctim)});
}

int64_t StatRewriter::latest_time(const struct statx& status) {
    if (S_ISDIR(status.stx_mode)) {
        return 0;
    }
    return std::max(
        {ns_of(status.stx_atime), ns_of(status.stx_mtime), ns_of(status.stx_ctime), ns_of(status.stx_btime)});
}

} // namespace hermit::tracer::virt
