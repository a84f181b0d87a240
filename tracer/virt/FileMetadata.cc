#include "FileMetadata.h"

#include "DirectoryListing.h"
#include "GuestPathLookup.h"

#include "tracer/ProcFs.h"
#include "tracer/Task.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <utime.h>

#include <algorithm>
#include <array>
#include <ctime>
#include <filesystem>
#include <string>
#include <utility>

namespace hermit::tracer::virt {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;

int64_t ns_of(const timespec& time) {
    return time.tv_sec * kNsPerSecond + time.tv_nsec;
}

// When the run begins, as the kernel's file times count: the first tick of the coarse wall clock after
// now (a few ms at most). Every file change made before has an earlier time, even one made a moment ago,
// and every change the run makes a time no earlier (file times are the coarse clock, or finer but never
// behind it).
int64_t run_start_for_file_times() {
    timespec now{};
    clock_gettime(CLOCK_REALTIME, &now);
    timespec coarse{};
    clock_gettime(CLOCK_REALTIME_COARSE, &coarse);
    timespec resolution{};
    clock_getres(CLOCK_REALTIME_COARSE, &resolution);
    const timespec step{0, std::max<long>(resolution.tv_nsec / 8, 1000)};
    while (ns_of(coarse) <= ns_of(now)) {
        nanosleep(&step, nullptr);
        clock_gettime(CLOCK_REALTIME_COARSE, &coarse);
    }
    return ns_of(coarse);
}

uint64_t stat_result_address(const SyscallStop& stop) {
    return stop.number == SYS_statx        ? stop.args[4]
           : stop.number == SYS_newfstatat ? stop.args[2]
                                           : stop.args[1];
}

template <typename Status> std::optional<int64_t> latest_time_at(Task& task, uint64_t address) {
    const auto status = task.read_value<Status>(address);
    return status ? std::optional(StatRewriter::latest_time(*status)) : std::nullopt;
}

} // namespace

FileMetadata::FileMetadata(VirtualClock& clock, std::optional<int64_t> changes_since_ns)
    : clock_(clock), changes_since_ns_(changes_since_ns ? *changes_since_ns : run_start_for_file_times()),
      times_(clock, changes_since_ns_), rewriter_(inodes_, times_, clock) {}

void FileMetadata::on_exec(Task& task) {
    if (std::exchange(guest_started_, true)) {
        return;
    }
    const std::string descriptors = "/proc/" + std::to_string(task.host_pid()) + "/fd";
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(descriptors, error)) {
        struct stat status {};
        if (stat(entry.path().c_str(), &status) == 0) {
            times_.not_input(status.st_dev, status.st_ino);
        }
    }
}

void FileMetadata::on_recorded_stat(Task& task, const SyscallStop& stop, int64_t result) {
    if (result != 0) {
        return;
    }
    const uint64_t address = stat_result_address(stop);
    const std::optional<int64_t> latest = stop.number == SYS_statx
                                              ? latest_time_at<struct statx>(task, address)
                                              : latest_time_at<struct stat>(task, address);
    if (latest) {
        clock_.saw_file_time(*latest);
    }
}

SyscallDecision FileMetadata::emulate_stat(Task& task, const SyscallStop& stop) {
    auto answer = in_tracer_.answer(task, stop);
    if (!answer) {
        return SyscallDecision::stop_at_exit(); // rewrite_stat_result
    }
    if (answer->error != 0) {
        return SyscallDecision::emulate_outside_input(-answer->error);
    }
    const bool written = std::visit(
        [&](auto& status) {
            rewriter_.rewrite(status);
            return task.write_value(answer->address, status);
        },
        answer->status);
    // An unwritable buffer: the kernel tells the guest (EFAULT), from the exit-stop path.
    return written ? SyscallDecision::emulate_outside_input(0) : SyscallDecision::stop_at_exit();
}

template <typename Status> void FileMetadata::rewrite_stat_at(Task& task, uint64_t address) {
    auto status = task.read_value<Status>(address);
    if (status) {
        rewriter_.rewrite(*status);
        task.write_value(address, *status);
    }
}

void FileMetadata::rewrite_stat_result(Task& task, const SyscallStop& stop) {
    if (stop.number == SYS_statx) {
        rewrite_stat_at<struct statx>(task, stat_result_address(stop));
    } else {
        rewrite_stat_at<struct stat>(task, stat_result_address(stop));
    }
}

bool FileMetadata::sets_file_times(int number) {
    return number == SYS_utimensat || number == SYS_futimesat || number == SYS_utimes || number == SYS_utime;
}

void FileMetadata::on_set_file_times(Task& task, const SyscallStop& stop) {
    // utimensat(dirfd, path or NULL, times, flags), futimesat(dirfd, path, times), utimes(path, times),
    // utime(path, times). Without times the file gets "now": the next stat sees it changed.
    const bool at_directory = stop.number == SYS_utimensat || stop.number == SYS_futimesat;
    const uint64_t times_address = stop.args[at_directory ? 2 : 1];
    if (times_address == 0) {
        return;
    }
    std::optional<std::pair<int64_t, int64_t>> set; // access, modification
    if (stop.number == SYS_utimensat) {
        const auto times = task.read_value<std::array<timespec, 2>>(times_address);
        const auto given = [](const timespec& time) {
            return time.tv_nsec != UTIME_NOW && time.tv_nsec != UTIME_OMIT;
        };
        if (times && given((*times)[1])) {
            const timespec& access = given((*times)[0]) ? (*times)[0] : (*times)[1];
            set = {ns_of(access), ns_of((*times)[1])};
        }
    } else if (stop.number == SYS_utime) {
        if (const auto times = task.read_value<utimbuf>(times_address)) {
            set = {times->actime * kNsPerSecond, times->modtime * kNsPerSecond};
        }
    } else if (const auto times = task.read_value<std::array<timeval, 2>>(times_address)) {
        auto ns = [](const timeval& time) { return time.tv_sec * kNsPerSecond + time.tv_usec * 1000; };
        set = {ns((*times)[0]), ns((*times)[1])};
    }
    const uint64_t path_address = stop.args[at_directory ? 1 : 0];
    const std::optional<std::string> path =
        path_address != 0 ? GuestPathLookup::read_path(task, path_address) : std::string();
    if (!set || !path) {
        return;
    }
    const int dirfd = at_directory ? static_cast<int>(stop.args[0]) : AT_FDCWD;
    const bool follow = stop.number != SYS_utimensat || (stop.args[3] & AT_SYMLINK_NOFOLLOW) == 0;
    const GuestPathLookup::Found found = GuestPathLookup::find(task, dirfd, *path, follow);
    struct stat status {};
    if (found.file.get() >= 0 && fstat(found.file.get(), &status) == 0) {
        times_.on_times_set(status.st_dev, status.st_ino, set->first, set->second);
    }
}

void FileMetadata::rewrite_directory_entries(Task& task, const SyscallStop& stop, int64_t result) {
    struct stat directory {};
    const std::string fd_path = procfs::descriptor_link(task.host_tid(), static_cast<int>(stop.args[0]));
    if (stat(fd_path.c_str(), &directory) != 0) {
        return;
    }
    auto entries = task.read_bytes(stop.args[1], static_cast<size_t>(result));
    if (entries && virtualize_directory_entries(*entries, directory.st_dev, inodes_)) {
        task.write(stop.args[1], entries->data(), entries->size());
    }
}

} // namespace hermit::tracer::virt
