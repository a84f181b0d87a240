#include "ExecutableResolver.h"

#include "formats/Error.h"

#include <sys/stat.h>
#include <unistd.h>

namespace hermit::tracer {

namespace {

bool is_regular_file(const std::string& path) {
    struct stat info {};
    return stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

} // namespace

std::string resolve_executable(const std::string& name, const std::string& search_path) {
    if (name.empty()) {
        throw Error(ErrorCode::GuestNotFound, name);
    }
    if (name.find('/') != std::string::npos) {
        if (!is_regular_file(name)) {
            throw Error(ErrorCode::GuestNotFound, name);
        }
        if (access(name.c_str(), X_OK) != 0) {
            throw Error(ErrorCode::GuestNotExecutable, name);
        }
        return name;
    }
    bool found_without_permission = false;
    size_t start = 0;
    for (;;) {
        size_t end = search_path.find(':', start);
        std::string directory = search_path.substr(start, end == std::string::npos ? end : end - start);
        std::string candidate = (directory.empty() ? std::string(".") : directory) + "/" + name;
        if (is_regular_file(candidate)) {
            if (access(candidate.c_str(), X_OK) == 0) {
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
    throw Error(ErrorCode::GuestNotFound, name);
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
