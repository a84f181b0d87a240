#include "ProcFs.h"

#include "formats/FileIo.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <climits>
#include <filesystem>
#include <sstream>

namespace hermit::tracer::procfs {

namespace {

std::string proc_path(pid_t host_tid, const char* file) {
    return "/proc/" + std::to_string(host_tid) + "/" + file;
}

// With read() into one buffer: the status file is read at every recorded mkdir and creating open.
std::string read_whole(const std::string& path) {
    std::string text;
    const UniqueFd file(open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (file.get() < 0) {
        return text;
    }
    std::array<char, 4096> buffer; // NOLINT(cppcoreguidelines-pro-type-member-init): read into
    for (;;) {
        const ssize_t count = read(file.get(), buffer.data(), buffer.size());
        if (count < 0 && errno == EINTR) {
            continue;
        }
        if (count <= 0) {
            return text;
        }
        text.append(buffer.data(), static_cast<size_t>(count));
    }
}

// What follows "name:" on its line of a status file.
std::optional<std::string> status_line(const std::string& status, const std::string& name) {
    const std::string label = name + ":";
    size_t start = 0;
    if (!status.starts_with(label)) {
        start = status.find("\n" + label);
        if (start == std::string::npos) {
            return std::nullopt;
        }
        start += 1; // past the newline
    }
    start += label.size();
    const size_t end = status.find('\n', start);
    return status.substr(start, end == std::string::npos ? std::string::npos : end - start);
}

// The first (or last) whitespace-separated field of the status line "name:\t...".
std::optional<std::string> status_field(const std::string& status, const std::string& name, bool last) {
    const auto line = status_line(status, name);
    if (!line) {
        return std::nullopt;
    }
    std::istringstream fields(*line);
    std::string field, result;
    while (fields >> field) {
        result = field;
        if (!last) {
            break;
        }
    }
    return result;
}

// The fields of /proc/<tid>/stat after the command name (state first). The name in parentheses may
// contain anything, so the fields start after the last ')'.
std::vector<std::string> stat_fields_after_name(pid_t host_tid) {
    std::string stat = read_whole(proc_path(host_tid, "stat"));
    size_t end = stat.rfind(')');
    std::vector<std::string> fields;
    if (end == std::string::npos) {
        return fields;
    }
    std::istringstream stream(stat.substr(end + 1));
    std::string field;
    while (stream >> field) {
        fields.push_back(field);
    }
    return fields;
}

uint64_t hex_field(const std::string& status, const std::string& name) {
    auto field = status_field(status, name, false);
    return field ? std::stoull(*field, nullptr, 16) : 0;
}

} // namespace

GuestIds guest_ids(pid_t host_tid) {
    const std::string status = read_whole(proc_path(host_tid, "status"));
    const auto tgid = status_field(status, "Tgid", false);
    const pid_t host_pid = tgid ? std::stoi(*tgid) : 0;
    GuestIds ids{host_tid, host_pid, host_pid};
    if (auto tid = status_field(status, "NSpid", true)) {
        ids.tid = std::stoi(*tid);
    }
    if (auto pid = status_field(status, "NStgid", true)) {
        ids.pid = std::stoi(*pid);
    }
    return ids;
}

char thread_state(pid_t host_tid) {
    std::vector<std::string> fields = stat_fields_after_name(host_tid);
    return fields.empty() || fields[0].empty() ? 0 : fields[0][0];
}

bool dying(pid_t host_tid) {
    constexpr unsigned long kExiting = 0x4; // PF_EXITING, in the flags field
    const std::vector<std::string> fields = stat_fields_after_name(host_tid);
    if (fields.size() < 7 || fields[0] == "Z" || fields[0] == "X" ||
        (std::stoul(fields[6]) & kExiting) != 0) {
        return true;
    }
    return (signal_dispositions(host_tid).pending & (uint64_t{1} << (SIGKILL - 1))) != 0;
}

pid_t process_group(pid_t host_pid) {
    std::vector<std::string> fields = stat_fields_after_name(host_pid);
    return fields.size() > 2 ? std::stoi(fields[2]) : 0;
}

std::vector<pid_t> child_processes(pid_t host_pid) {
    std::vector<pid_t> children;
    std::error_code error;
    for (const auto& task : std::filesystem::directory_iterator(proc_path(host_pid, "task"), error)) {
        std::istringstream list(read_whole((task.path() / "children").string()));
        pid_t child = 0;
        while (list >> child) {
            children.push_back(child);
        }
    }
    return children;
}

std::optional<SyscallStop> current_syscall(pid_t host_tid) {
    // "NR arg1 ... sp pc" (the arguments in hex), or "-1 sp pc" outside a syscall, or "running".
    std::istringstream fields(read_whole(proc_path(host_tid, "syscall")));
    SyscallStop call;
    if (!(fields >> call.number) || call.number < 0) {
        return std::nullopt;
    }
    for (uint64_t& argument : call.args) {
        fields >> std::hex >> argument;
    }
    return call;
}

SignalDispositions signal_dispositions(pid_t host_tid) {
    std::string status = read_whole(proc_path(host_tid, "status"));
    return {hex_field(status, "SigCgt"), hex_field(status, "SigIgn"), hex_field(status, "SigBlk"),
            hex_field(status, "SigPnd") | hex_field(status, "ShdPnd")};
}

bool real_ids_are_effective(pid_t host_tid) {
    const std::string status = read_whole(proc_path(host_tid, "status"));
    for (const char* name : {"Uid", "Gid"}) {
        const auto line = status_line(status, name);
        std::istringstream ids(line.value_or(""));
        uint64_t real = 0;
        uint64_t effective = 0;
        if (!(ids >> real >> effective) || real != effective) {
            return false;
        }
    }
    return true;
}

std::optional<mode_t> file_creation_mask(pid_t host_tid) {
    const auto mask = status_field(read_whole(proc_path(host_tid, "status")), "Umask", false);
    return mask ? std::optional(static_cast<mode_t>(std::stoul(*mask, nullptr, 8))) : std::nullopt;
}

namespace {

std::optional<ino_t> namespace_inode(const std::string& link) {
    struct stat status {};
    return stat(link.c_str(), &status) == 0 ? std::optional(status.st_ino) : std::nullopt;
}

} // namespace

std::optional<ino_t> user_namespace(pid_t host_tid) {
    return namespace_inode(proc_path(host_tid, "ns/user"));
}

std::optional<ino_t> own_user_namespace() {
    return namespace_inode("/proc/self/ns/user");
}

// The target of the link `file` of /proc/<tid>; empty when unreadable.
std::string link_target(pid_t host_tid, const char* file) {
    char buffer[PATH_MAX];
    ssize_t length = readlink(proc_path(host_tid, file).c_str(), buffer, sizeof buffer - 1);
    return length > 0 ? std::string(buffer, static_cast<size_t>(length)) : std::string();
}

std::string executable_path(pid_t host_tid) {
    return link_target(host_tid, "exe");
}

std::string working_directory_path(pid_t host_tid) {
    return link_target(host_tid, "cwd");
}

std::string descriptor_link(pid_t host_pid, int fd) {
    return "/proc/" + std::to_string(host_pid) + "/fd/" + std::to_string(fd);
}

std::optional<std::pair<dev_t, ino_t>> descriptor_object(pid_t host_pid, int fd) {
    struct stat info {};
    const std::string link = descriptor_link(host_pid, fd);
    if (stat(link.c_str(), &info) != 0) {
        return std::nullopt;
    }
    return std::make_pair(info.st_dev, info.st_ino);
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
