#include "GuestEnvironment.h"

#include <unistd.h>

#include <filesystem>

extern char** environ;

namespace hermit::replay {

std::vector<std::string> current_environment() {
    std::vector<std::string> entries;
    for (char** entry = environ; entry != nullptr && *entry != nullptr; entry++) {
        entries.emplace_back(*entry);
    }
    return entries;
}

std::string current_directory() {
    return std::filesystem::current_path().string();
}

} // namespace hermit::replay
