#pragma once
// VirtualFiles: stand-ins for files whose contents differ between runs or hosts. When the guest opens one
// of the paths below for reading, the Virtualizer points the open at a file hermit generated in a private
// temporary directory instead:
//   /dev/urandom, /dev/random          64 KiB of fresh guest-data PRNG bytes per open, then end of file
//   /proc/sys/kernel/random/uuid       a fresh random UUID per open
//   /proc/sys/kernel/random/boot_id    one UUID per run, from the seed
//   /proc/uptime                       the virtual uptime (CLOCK_BOOTTIME) and idle time
//   /proc/cpuinfo                      2 processors of the hermit virtual CPU
//   /sys/devices/system/cpu/{online,possible,present}   "0-1"
// Paths match exactly as the guest spelled them (absolute, no symlinks or "..").

#include "GuestRandom.h"
#include "VirtualClock.h"

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
    };

    // `random` and `clock` must outlive this object. Creates nothing until the first replacement.
    VirtualFiles(GuestRandom& random, const VirtualClock& clock);
    ~VirtualFiles(); // removes the directory and everything in it
    VirtualFiles(const VirtualFiles&) = delete;
    VirtualFiles& operator=(const VirtualFiles&) = delete;

    static bool replaced(const std::string& guest_path);
    // The file to open instead of `guest_path`, or nullopt when the path is not replaced.
    std::optional<Replacement> replacement(const std::string& guest_path);

    // Every open materializes a whole file (hermit cannot see the guest's reads), so the size is what
    // each open costs: about 0.06 ms plus 1 ms per MiB here. git opens /dev/urandom for every object it
    // writes (480 opens to add 300 files): 4 MiB per open made `git add` 20x slower, 256 KiB still cost
    // 0.14 s of its 0.6 s; 64 KiB costs 0.03 s and is still far more than the bytes readers take (a
    // key or a seed; stdio reads 4 KiB).
    static constexpr size_t kRandomFileSize = 64 << 10;

private:
    std::filesystem::path new_file(const std::string& stem, const std::string& contents);
    std::string random_uuid();

    GuestRandom& random_;
    const VirtualClock& clock_;
    std::filesystem::path directory_;
    std::optional<std::filesystem::path> boot_id_;
    std::optional<std::filesystem::path> cpuinfo_;
    std::optional<std::filesystem::path> cpu_range_;
    uint64_t files_made_ = 0;
};

} // namespace hermit::tracer::virt
