#pragma once
// VirtualFiles: stand-ins for files whose contents differ between runs or hosts. When the guest opens one
// of the paths below for reading, the Virtualizer points the open at a file hermit generated in a private
// temporary directory instead:
//   /dev/urandom, /dev/random          guest-data PRNG bytes: each open starts with 16 KiB of fresh bytes
//                                      and can read at least 4 MiB before end of file
//   /proc/sys/kernel/random/uuid       a fresh random UUID per open
//   /proc/sys/kernel/random/boot_id    one UUID per run, from the seed
//   /proc/uptime                       the virtual uptime (CLOCK_BOOTTIME) and idle time
//   /proc/cpuinfo                      2 processors of the hermit virtual CPU
//   /sys/devices/system/cpu/{online,possible,present}   "0-1"
// Paths match exactly as the guest spelled them (absolute, no symlinks or "..").
//
// The random devices cost one notification per open when the guest has its own mount namespace: then the
// random device file is mounted over both (GuestLauncher's overlays), and each open by one of these names
// first refreshes the file's first window (refresh_random_device). A guest without namespaces gets its
// opens pointed at the shared file instead, each at its own window (SyscallDecision::replace_path; the
// descriptor is positioned once the open is done).

#include "GuestRandom.h"
#include "VirtualClock.h"
#include "formats/FileIo.h"
#include "tracer/ScratchDirectory.h"

#include <filesystem>
#include <optional>
#include <string>

namespace hermit::tracer::virt {

class VirtualFiles {
public:
    struct Replacement {
        std::string host_path;
        // The file serves one open only; remove it once the guest holds its descriptor.
        bool remove_after_open = false;
        // Where the guest's descriptor must start reading (the open's window of a shared file).
        uint64_t start_offset = 0;
    };

    // `random` and `clock` must outlive this object. Creates nothing until the first replacement.
    VirtualFiles(GuestRandom& random, const VirtualClock& clock);
    VirtualFiles(const VirtualFiles&) = delete;
    VirtualFiles& operator=(const VirtualFiles&) = delete;

    static bool replaced(const std::string& guest_path);
    static bool is_random_device(const std::string& guest_path);

    // The file to mount over the random devices; created empty, filled by the first refresh.
    const std::filesystem::path& random_device();
    // Before an open of the mounted random device: fresh bytes for its first kRandomWindow bytes (all
    // kRandomReadable bytes the first time).
    void refresh_random_device();

    // The file to open instead of `guest_path`, or nullopt when the path is not replaced.
    std::optional<Replacement> replacement(const std::string& guest_path);

    // Hermit cannot see the guest's reads, so every byte an open may read must exist in a file when it
    // opens. Generating 4 MiB per open made `git add` (an open per object) 20x slower; instead opens
    // share a file that grows by one window per open, and each open is positioned at its own window.
    // A file serves kWindowsPerRandomFile opens, then a new one starts, so it never exceeds 8 MiB.
    static constexpr uint64_t kRandomWindow = 16 << 10;
    static constexpr uint64_t kRandomReadable = 4 << 20; // bytes every open can read before end of file
    static constexpr uint64_t kWindowsPerRandomFile = 64;

private:
    std::filesystem::path new_file(const std::string& stem, const std::string& contents);
    std::string random_uuid();
    Replacement next_random_window();
    // Writes `length` (a multiple of kRandomWindow) fresh guest-data bytes at `offset` of `file`, named
    // `path` in errors.
    void write_random_bytes(int file, const std::filesystem::path& path, uint64_t offset, uint64_t length);

    GuestRandom& random_;
    const VirtualClock& clock_;
    ScratchDirectory directory_; // removed with everything in it
    std::optional<std::filesystem::path> boot_id_;
    std::optional<std::filesystem::path> cpuinfo_;
    std::optional<std::filesystem::path> cpu_range_;
    uint64_t files_made_ = 0;
    std::optional<std::filesystem::path> random_file_;
    uint64_t random_file_size_ = 0;
    uint64_t random_windows_served_ = 0;
    std::filesystem::path random_device_;
    UniqueFd random_device_file_; // open for writing from the first refresh
    std::string random_bytes_;    // one window of bytes, the buffer of every write_random_bytes
    bool random_device_filled_ = false;
};

} // namespace hermit::tracer::virt
