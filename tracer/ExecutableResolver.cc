#include "ExecutableResolver.h"

#include "formats/Error.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>

namespace hermit::tracer {

namespace {

bool is_regular_file(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

// What the kernel would run: a script (#!) or a 64-bit x86 ELF program; anything else fails its exec
// after hermit set everything up, so it is refused first, saying why.
void check_runnable(const std::string& name, const std::string& path) {
    unsigned char header[EI_NIDENT + 4] = {};
    const int file = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const ssize_t count = file >= 0 ? read(file, header, sizeof header) : -1;
    if (file >= 0) {
        close(file);
    }
    if (count >= 2 && header[0] == '#' && header[1] == '!') {
        return;
    }
    if (count < EI_NIDENT || std::memcmp(header, ELFMAG, SELFMAG) != 0) {
        throw Error(ErrorCode::GuestNotRunnable, name, "not an ELF program or a script");
    }
    if (header[EI_CLASS] != ELFCLASS64) {
        throw Error(ErrorCode::GuestNotRunnable, name, "32-bit programs are not supported");
    }
}

} // namespace

bool is_32_bit_program(const std::string& path) {
    unsigned char header[EI_NIDENT] = {};
    const int file = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    const ssize_t count = file >= 0 ? read(file, header, sizeof header) : -1;
    if (file >= 0) {
        close(file);
    }
    return count == EI_NIDENT && std::memcmp(header, ELFMAG, SELFMAG) == 0 && header[EI_CLASS] == ELFCLASS32;
}

std::string resolve_executable(const std::string& name, const std::string& search_path,
                               const std::string& working_directory) {
    // A relative name is the guest's: it execs it from `working_directory`, where hermit looks for it.
    const auto located = [&working_directory](const std::string& path) {
        return working_directory.empty() || path.starts_with('/') ? path : working_directory + "/" + path;
    };
    if (name.empty()) {
        throw Error(ErrorCode::GuestNotFound, name, "no such file or directory");
    }
    if (name.find('/') != std::string::npos) {
        const std::string path = located(name);
        if (std::filesystem::is_directory(path)) {
            throw Error(ErrorCode::GuestNotFound, name, "is a directory");
        }
        if (!is_regular_file(path)) {
            throw Error(ErrorCode::GuestNotFound, name, "no such file or directory");
        }
        if (access(path.c_str(), X_OK) != 0) {
            throw Error(ErrorCode::GuestNotExecutable, name);
        }
        check_runnable(name, path);
        return name;
    }
    bool found_without_permission = false;
    size_t start = 0;
    for (;;) {
        size_t end = search_path.find(':', start);
        std::string directory = search_path.substr(start, end == std::string::npos ? end : end - start);
        std::string candidate = (directory.empty() ? std::string(".") : directory) + "/" + name;
        if (is_regular_file(located(candidate))) {
            if (access(located(candidate).c_str(), X_OK) == 0) {
                check_runnable(name, located(candidate));
                return candidate;
            }
            found_without_permission = true;
        }
        if (end == std::string::npos) {
            break;
        }
        start = end + 1;
    }
    if (found_without_permission) {
        throw Error(ErrorCode::GuestNotExecutable, name);
    }
    throw Error(ErrorCode::GuestNotFound, name, "no such file or directory in PATH");
}

std::string search_path_of(const std::vector<std::string>& env) {
    for (const std::string& entry : env) {
        if (entry.starts_with("PATH=")) {
            return entry.substr(5);
        }
    }
    return "/usr/bin:/bin";
}

} // namespace hermit::tracer
