#include "StackUnwinder.h"

#include <fmt/format.h>
#include <libunwind-ptrace.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

namespace hermit::tracer {

namespace {

struct Mapping {
    uint64_t start = 0, end = 0, file_offset = 0;
    std::string path;
};

std::vector<Mapping> read_file_mappings(pid_t tid) {
    std::vector<Mapping> mappings;
    std::ifstream maps(fmt::format("/proc/{}/maps", tid));
    std::string line;
    while (std::getline(maps, line)) {
        Mapping mapping;
        char permissions[8] = {};
        char path[4096] = {};
        unsigned long start, end, offset;
        if (std::sscanf(line.c_str(), "%lx-%lx %7s %lx %*s %*s %4095[^\n]", &start, &end, permissions,
                        &offset, path) == 5 &&
            path[0] == '/') {
            mappings.push_back({start, end, offset, path});
        }
    }
    return mappings;
}

const Mapping* mapping_for(const std::vector<Mapping>& mappings, uint64_t pc) {
    for (const auto& mapping : mappings) {
        if (pc >= mapping.start && pc < mapping.end) {
            return &mapping;
        }
    }
    return nullptr;
}

// The address addr2line expects: the pc relative to where the module's file offset 0 was loaded. For a
// non-PIE executable that equals the pc itself, which addr2line also accepts because its first segment
// is mapped at its link address.
uint64_t module_address(const Mapping& mapping, uint64_t pc, bool position_independent) {
    return position_independent ? pc - mapping.start + mapping.file_offset : pc;
}

bool is_position_independent(const std::string& path) {
    std::ifstream elf(path, std::ios::binary);
    unsigned char header[18] = {};
    elf.read(reinterpret_cast<char*>(header), sizeof header);
    return elf && header[16] == 3; // e_type ET_DYN (little-endian)
}

// Runs addr2line once per module for all its addresses; fills function and location.
void symbolize(std::vector<StackFrame>& frames, const std::vector<Mapping>& mappings) {
    std::map<std::string, std::vector<size_t>> frames_by_module;
    std::map<size_t, uint64_t> address_of_frame;
    for (size_t i = 0; i < frames.size(); ++i) {
        const Mapping* mapping = mapping_for(mappings, frames[i].pc);
        if (mapping == nullptr) {
            continue;
        }
        uint64_t address = module_address(*mapping, frames[i].pc, is_position_independent(mapping->path));
        frames[i].location = fmt::format("{}+{:#x}", mapping->path, address);
        frames_by_module[mapping->path].push_back(i);
        address_of_frame[i] = address;
    }
    for (const auto& [module, indices] : frames_by_module) {
        std::string command = fmt::format("addr2line -f -C -e '{}'", module);
        for (size_t index : indices) {
            // A return address points after the call; look up the call instruction itself.
            uint64_t address = address_of_frame[index];
            command += fmt::format(" {:#x}", index == 0 ? address : address - 1);
        }
        FILE* pipe = popen((command + " 2>/dev/null").c_str(), "r");
        if (pipe == nullptr) {
            continue;
        }
        char function[1024], location[4096];
        for (size_t index : indices) {
            if (std::fgets(function, sizeof function, pipe) == nullptr ||
                std::fgets(location, sizeof location, pipe) == nullptr) {
                break;
            }
            std::string function_name(function, std::strcspn(function, "\n"));
            std::string file_line(location, std::strcspn(location, "\n"));
            if (function_name != "??") {
                frames[index].function = function_name;
            }
            if (file_line.rfind("??", 0) != 0) {
                // Drop the directory and any " (discriminator N)" suffix.
                file_line = file_line.substr(file_line.find_last_of('/') + 1);
                file_line = file_line.substr(0, file_line.find(' '));
                frames[index].location = file_line;
            }
        }
        pclose(pipe);
    }
}

} // namespace

std::vector<StackFrame> unwind_stack(pid_t host_tid, size_t max_frames) {
    std::vector<StackFrame> frames;
    unw_addr_space_t address_space = unw_create_addr_space(&_UPT_accessors, 0);
    if (address_space == nullptr) {
        return frames;
    }
    void* context = _UPT_create(host_tid);
    unw_cursor_t cursor;
    if (context != nullptr && unw_init_remote(&cursor, address_space, context) == 0) {
        do {
            unw_word_t pc = 0;
            if (unw_get_reg(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) {
                break;
            }
            StackFrame frame;
            frame.pc = pc;
            char name[512];
            unw_word_t offset = 0;
            if (unw_get_proc_name(&cursor, name, sizeof name, &offset) == 0) {
                frame.function = name;
            }
            frames.push_back(std::move(frame));
        } while (frames.size() < max_frames && unw_step(&cursor) > 0);
    }
    if (context != nullptr) {
        _UPT_destroy(context);
    }
    unw_destroy_addr_space(address_space);
    symbolize(frames, read_file_mappings(host_tid));
    for (auto& frame : frames) {
        if (frame.function.empty()) {
            frame.function = "??";
        }
    }
    return frames;
}

std::string format_stack(const std::vector<StackFrame>& frames) {
    std::string text;
    for (size_t i = 0; i < frames.size(); ++i) {
        text +=
            fmt::format("#{} {:#x} in {} at {}\n", i, frames[i].pc, frames[i].function, frames[i].location);
    }
    return text;
}

} // namespace hermit::tracer
