#include "ProcessImage.h"

#include "formats/Error.h"
#include "tracer/ProcessMemoryFile.h"

#include <elf.h>
#include <spdlog/spdlog.h>
#include <sys/ptrace.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace hermit::replay {

namespace {

// The largest x86 extended state the kernel hands out (AVX-512 and AMX tile data fit in 12 KiB).
constexpr size_t kExtendedStateBytes = 12288;

std::vector<uint8_t> read_extended_state(pid_t tid) {
    std::vector<uint8_t> state(kExtendedStateBytes);
    iovec buffer{state.data(), state.size()};
    if (ptrace(PTRACE_GETREGSET, tid, NT_X86_XSTATE, &buffer) != 0) {
        throw Error(ErrorCode::TracerInternal,
                    std::string("cannot save the registers of a thread: ") + std::strerror(errno));
    }
    state.resize(buffer.iov_len);
    return state;
}

std::string file_text(const std::filesystem::path& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The kernel's view of a thread's process, as text: equal texts, same state (for what an image needs).
std::string kernel_state(pid_t host_pid, pid_t host_tid) {
    const std::filesystem::path process = "/proc/" + std::to_string(host_pid);
    std::string state = file_text(process / "maps");
    std::istringstream status(file_text(process / "task" / std::to_string(host_tid) / "status"));
    for (std::string line; std::getline(status, line);) {
        if (line.starts_with("Sig") || line.starts_with("ShdPnd")) {
            state += line + "\n";
        }
    }
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(process / "fd", error)) {
        const std::string fd = entry.path().filename().string();
        state += fd + " " + std::filesystem::read_symlink(entry.path(), error).string() + "\n";
        state += file_text(process / "fdinfo" / fd);
    }
    return state;
}

} // namespace

ProcessImage::ProcessImage(tracer::Task& task)
    : registers_(task.registers()), extended_state_(read_extended_state(task.host_tid())),
      regions_(mappings(task.host_pid())), kernel_state_(kernel_state(task.host_pid(), task.host_tid())) {
    tracer::ProcessMemoryFile memory(task.host_tid());
    for (Region& region : regions_) {
        if (!region.writable) {
            continue;
        }
        region.bytes.resize(region.end - region.start);
        if (!memory.read(region.start, region.bytes.data(), region.bytes.size())) {
            region.bytes.clear(); // not readable (a device's mapping): left as it is
        }
    }
}

std::vector<ProcessImage::Region> ProcessImage::mappings(pid_t host_pid) {
    std::vector<Region> regions;
    std::ifstream maps("/proc/" + std::to_string(host_pid) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
        std::istringstream fields(line);
        std::string range;
        std::string permissions;
        fields >> range >> permissions;
        const size_t dash = range.find('-');
        if (dash == std::string::npos || permissions.size() < 2) {
            continue;
        }
        Region region;
        region.start = std::stoull(range.substr(0, dash), nullptr, 16);
        region.end = std::stoull(range.substr(dash + 1), nullptr, 16);
        region.writable = permissions[1] == 'w';
        regions.push_back(std::move(region));
    }
    return regions;
}

bool ProcessImage::kernel_state_unchanged(const tracer::Task& task) const {
    return kernel_state(task.host_pid(), task.host_tid()) == kernel_state_;
}

void ProcessImage::restore(tracer::Task& task) const {
    tracer::ProcessMemoryFile memory(task.host_tid());
    for (const Region& region : regions_) {
        if (!region.bytes.empty() && !memory.write(region.start, region.bytes.data(), region.bytes.size())) {
            spdlog::warn("the memory at {:#x}-{:#x} could not be put back", region.start, region.end);
        }
    }
    task.set_registers(registers_);
    task.flush_registers();
    iovec buffer{const_cast<uint8_t*>(extended_state_.data()), extended_state_.size()};
    ptrace(PTRACE_SETREGSET, task.host_tid(), NT_X86_XSTATE, &buffer);
}

} // namespace hermit::replay
