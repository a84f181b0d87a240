#include "GuestEnvironment.h"

#include "tracer/SyscallBuffer.h"

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <string_view>

extern char** environ;

namespace hermit::replay {

std::vector<std::string> current_environment() {
    std::vector<std::string> entries;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; entry++) {
        entries.emplace_back(*entry);
    }
    return entries;
}

std::vector<std::string> recorded_environment() {
    std::vector<std::string> entries = current_environment();
    const std::string library = tracer::syscall_buffer::preload_library();
    if (library.empty()) {
        return entries;
    }
    constexpr std::string_view kPreload = "LD_PRELOAD=";
    auto preload = std::find_if(entries.begin(), entries.end(),
                                [&](const std::string& entry) { return entry.starts_with(kPreload); });
    // Last: a library the guest preloads itself (fakeroot's) still comes first and reaches this one through
    // dlsym(RTLD_NEXT).
    if (preload == entries.end()) {
        entries.push_back(std::string(kPreload) + library);
    } else if (preload->size() == kPreload.size()) {
        *preload += library;
    } else {
        *preload += ":" + library;
    }
    return entries;
}

std::string current_directory() {
    return std::filesystem::current_path().string();
}

} // namespace hermit::replay
