#include "ProcFs.h"

#include <unistd.h>

#include <climits>
#include <fstream>
#include <sstream>

namespace hermit::tracer::procfs {

namespace {

std::string proc_path(pid_t host_tid, const char* file) {
    return "/proc/" + std::to_string(host_tid) + "/" + file;
}

std::string read_whole(const std::string& path) {
    std::ifstream stream(path);
    std::stringstream buffer;
    buffer << stream.rdbuf();
    return buffer.str();
}

// The last whitespace-separated field of the status line "name:\t...".
std::optional<std::string> status_field(const std::string& status, const std::string& name, bool last) {
    std::istringstream lines(status);
    std::string line;
    while (std::getline(lines, line)) {
        if (line.rfind(name + ":", 0) == 0) {
            std::istringstream fields(line.substr(name.size() + 1));
            std::string field, result;
            while (fields >> field) {
                result = field;
                if (!last) {
                    break;
                }
            }
            return result;
        }
    }
    return std::nullopt;
}

uint64_t hex_field(const std::string& status, const std::string& name) {
    auto field = status_field(status, name, false);
    return field ? std::stoull(*field, nullptr, 16) : 0;
}

} // namespace

GuestIds guest_ids(pid_t host_tid) {
    std::string status = read_whole(proc_path(host_tid, "status"));
    GuestIds ids{host_tid, host_tgid(host_tid)};
    if (auto tid = status_field(status, "NSpid", true)) {
        ids.tid = std::stoi(*tid);
    }
    if (auto pid = status_field(status, "NStgid", true)) {
        ids.pid = std::stoi(*pid);
    }
    return ids;
}

pid_t host_tgid(pid_t host_tid) {
    auto field = status_field(read_whole(proc_path(host_tid, "status")), "Tgid", false);
    return field ? std::stoi(*field) : 0;
}

char thread_state(pid_t host_tid) {
    std::string stat = read_whole(proc_path(host_tid, "stat"));
    // The command name in parentheses may contain anything; the state follows the last ')'.
    size_t end = stat.rfind(')');
    if (end == std::string::npos || end + 2 >= stat.size()) {
        return 0;
    }
    return stat[end + 2];
}

bool in_syscall(pid_t host_tid) {
    std::string syscall = read_whole(proc_path(host_tid, "syscall"));
    return !syscall.empty() && syscall.rfind("running", 0) != 0 && syscall[0] != '-';
}

SignalDispositions signal_dispositions(pid_t host_tid) {
    std::string status = read_whole(proc_path(host_tid, "status"));
    return {hex_field(status, "SigCgt"), hex_field(status, "SigIgn"), hex_field(status, "SigBlk")};
}

std::string executable_path(pid_t host_tid) {
    char buffer[PATH_MAX];
    ssize_t length = readlink(proc_path(host_tid, "exe").c_str(), buffer, sizeof buffer - 1);
    return length > 0 ? std::string(buffer, static_cast<size_t>(length)) : std::string();
}

std::vector<std::string> command_line(pid_t host_tid) {
    std::string text = read_whole(proc_path(host_tid, "cmdline"));
    std::vector<std::string> arguments;
    size_t start = 0;
    while (start < text.size()) {
        size_t end = text.find('\0', start);
        if (end == std::string::npos) {
            end = text.size();
        }
        arguments.push_back(text.substr(start, end - start));
        start = end + 1;
    }
    return arguments;
}

} // namespace hermit::tracer::procfs
