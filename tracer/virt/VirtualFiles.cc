#include "VirtualFiles.h"

#include "CpuidTable.h"

#include "formats/Error.h"
#include "formats/FileIo.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <set>
#include <system_error>
#include <unistd.h>

namespace hermit::tracer::virt {
namespace {

const std::set<std::string>& replaced_paths() {
    static const std::set<std::string> paths = {
        "/dev/urandom",
        "/dev/random",
        "/proc/sys/kernel/random/uuid",
        "/proc/sys/kernel/random/boot_id",
        "/proc/uptime",
        "/proc/cpuinfo",
        "/sys/devices/system/cpu/online",
        "/sys/devices/system/cpu/possible",
        "/sys/devices/system/cpu/present",
    };
    return paths;
}

std::string cpuinfo_text() {
    std::string text;
    for (uint32_t cpu = 0; cpu < CpuidTable::kLogicalCpus; ++cpu) {
        text += fmt::format("processor\t: {}\n"
                            "vendor_id\t: GenuineIntel\n"
                            "cpu family\t: 6\n"
                            "model\t\t: 158\n"
                            "model name\t: hermit virtual CPU\n"
                            "stepping\t: 10\n"
                            "cpu MHz\t\t: 3000.000\n"
                            "cache size\t: 8192 KB\n"
                            "physical id\t: 0\n"
                            "siblings\t: {}\n"
                            "core id\t\t: {}\n"
                            "cpu cores\t: {}\n"
                            "fpu\t\t: yes\n"
                            "flags\t\t: fpu tsc cx8 cmov mmx fxsr sse sse2 syscall nx lm\n"
                            "bogomips\t: 6000.00\n"
                            "clflush size\t: 64\n"
                            "cache_alignment\t: 64\n"
                            "address sizes\t: 39 bits physical, 48 bits virtual\n\n",
                            cpu, CpuidTable::kLogicalCpus, cpu, CpuidTable::kLogicalCpus);
    }
    return text;
}

} // namespace

// The guest may run as another user inside its user namespace; it only needs to find the files.
VirtualFiles::VirtualFiles(GuestRandom& random, const VirtualClock& clock)
    : random_(random), clock_(clock),
      directory_("virt", std::filesystem::perms::owner_all | std::filesystem::perms::group_exec |
                             std::filesystem::perms::others_exec) {}

bool VirtualFiles::replaced(const std::string& guest_path) {
    return replaced_paths().count(guest_path) > 0;
}

std::filesystem::path VirtualFiles::new_file(const std::string& stem, const std::string& contents) {
    const std::filesystem::path& directory = directory_.path();
    if (directory.empty()) {
        throw Error(ErrorCode::TracerInternal,
                    fmt::format("cannot create a directory for virtual files: {}", std::strerror(errno)));
    }
    const std::filesystem::path path = directory / fmt::format("{}-{}", stem, files_made_++);
    std::ofstream file(path, std::ios::binary);
    file.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    file.close();
    if (!file) {
        throw Error(ErrorCode::TracerInternal, fmt::format("cannot write virtual file {}", path.string()));
    }
    return path;
}

std::string VirtualFiles::random_uuid() {
    uint8_t bytes[16];
    random_.fill(bytes, sizeof bytes);
    bytes[6] = static_cast<uint8_t>((bytes[6] & 0x0f) | 0x40); // version 4
    bytes[8] = static_cast<uint8_t>((bytes[8] & 0x3f) | 0x80); // RFC 4122 variant
    std::string text;
    for (int index = 0; index < 16; ++index) {
        if (index == 4 || index == 6 || index == 8 || index == 10) {
            text += '-';
        }
        text += fmt::format("{:02x}", bytes[index]);
    }
    return text + "\n";
}

VirtualFiles::Replacement VirtualFiles::next_random_window() {
    if (!random_file_ || random_windows_served_ == kWindowsPerRandomFile) {
        // Guests that opened the previous file keep reading it through their descriptors.
        if (random_file_) {
            std::filesystem::remove(*random_file_);
        }
        random_file_ = new_file("random", "");
        random_file_size_ = 0;
        random_windows_served_ = 0;
    }
    const uint64_t start = random_windows_served_++ * kRandomWindow;
    const uint64_t end = start + kRandomReadable;
    const UniqueFd file(open(random_file_->c_str(), O_WRONLY | O_CLOEXEC));
    write_random_bytes(file.get(), *random_file_, random_file_size_, end - random_file_size_);
    random_file_size_ = end;
    return Replacement{random_file_->string(), false, start};
}

bool VirtualFiles::is_random_device(const std::string& guest_path) {
    return guest_path == "/dev/urandom" || guest_path == "/dev/random";
}

const std::filesystem::path& VirtualFiles::random_device() {
    if (random_device_.empty()) {
        random_device_ = new_file("random-device", "");
    }
    return random_device_;
}

void VirtualFiles::refresh_random_device() {
    // Descriptors opened before keep reading this file: what they read next is as deterministic as the
    // order of the opens and reads, which the scheduler fixes.
    // One descriptor for every refresh: git opens the device for each object it writes.
    if (random_device_file_.get() < 0) {
        random_device_file_ = UniqueFd(open(random_device().c_str(), O_WRONLY | O_CLOEXEC));
    }
    write_random_bytes(random_device_file_.get(), random_device_, 0,
                       random_device_filled_ ? kRandomWindow : kRandomReadable);
    random_device_filled_ = true;
}

void VirtualFiles::write_random_bytes(int file, const std::filesystem::path& path, uint64_t offset,
                                      uint64_t length) {
    // A window at a time through one buffer: a buffer of a first fill's 4 MiB cost more in page faults than
    // the writes.
    random_bytes_.resize(kRandomWindow);
    for (uint64_t written = 0; written < length; written += kRandomWindow) {
        random_.fill(random_bytes_.data(), random_bytes_.size());
        if (file < 0 || pwrite(file, random_bytes_.data(), random_bytes_.size(),
                               static_cast<off_t>(offset + written)) != static_cast<ssize_t>(kRandomWindow)) {
            throw Error(ErrorCode::TracerInternal,
                        fmt::format("cannot write virtual file {}: {}", path.string(), std::strerror(errno)));
        }
    }
}

std::optional<VirtualFiles::Replacement> VirtualFiles::replacement(const std::string& guest_path) {
    if (is_random_device(guest_path)) {
        return next_random_window();
    }
    if (guest_path == "/proc/sys/kernel/random/uuid") {
        return Replacement{new_file("uuid", random_uuid()).string(), true};
    }
    if (guest_path == "/proc/sys/kernel/random/boot_id") {
        if (!boot_id_) {
            boot_id_ = new_file("boot_id", random_uuid());
        }
        return Replacement{boot_id_->string(), false};
    }
    if (guest_path == "/proc/uptime") {
        const int64_t uptime_cs = clock_.monotonic_ns() / 10000000;
        const int64_t idle_cs = uptime_cs * CpuidTable::kLogicalCpus / 2;
        const std::string text = fmt::format("{}.{:02} {}.{:02}\n", uptime_cs / 100, uptime_cs % 100,
                                             idle_cs / 100, idle_cs % 100);
        return Replacement{new_file("uptime", text).string(), true};
    }
    if (guest_path == "/proc/cpuinfo") {
        if (!cpuinfo_) {
            cpuinfo_ = new_file("cpuinfo", cpuinfo_text());
        }
        return Replacement{cpuinfo_->string(), false};
    }
    if (guest_path.starts_with("/sys/devices/system/cpu/") && replaced(guest_path)) {
        if (!cpu_range_) {
            cpu_range_ = new_file("cpu-range", fmt::format("0-{}\n", CpuidTable::kLogicalCpus - 1));
        }
        return Replacement{cpu_range_->string(), false};
    }
    return std::nullopt;
}

} // namespace hermit::tracer::virt
