#include "StackUnwinder.h"

#include <dlfcn.h>
#include <fmt/format.h>
#include <libunwind-ptrace.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <type_traits>

namespace hermit::tracer {

namespace {

// libunwind, loaded at the first unwind (`hermit analyze`) rather than linked: its libraries and liblzma
// cost every start of hermit their loading and symbol lookups (about 0.5 ms on our VMs), and loaded after
// libgcc_s its _Unwind_* functions cannot take C++ exceptions away from it.
class LibUnwind {
public:
    // Null when libunwind cannot be loaded: no stacks then.
    static const LibUnwind* get() {
        static const std::optional<LibUnwind> loaded = load();
        return loaded ? &*loaded : nullptr;
    }

    unw_accessors_t* accessors = nullptr;
    decltype(&_UPT_create) create_context = nullptr;
    decltype(&_UPT_destroy) destroy_context = nullptr;
    decltype(&unw_create_addr_space) create_address_space = nullptr;
    decltype(&unw_destroy_addr_space) destroy_address_space = nullptr;
    decltype(&unw_init_remote) init_remote = nullptr;
    decltype(&unw_get_reg) get_register = nullptr;
    decltype(&unw_get_proc_name) get_procedure_name = nullptr;
    decltype(&unw_step) step = nullptr;

private:
    static std::optional<LibUnwind> load() {
        // libunwind-ptrace needs the unwinder's symbols without linking it: that goes first, global (after
        // libgcc_s in the search order, which keeps C++ exceptions). The handles stay open for good.
        void* unwinder = dlopen("libunwind-x86_64.so.8", RTLD_NOW | RTLD_GLOBAL);
        void* library =
            unwinder != nullptr ? dlopen("libunwind-ptrace.so.0", RTLD_NOW | RTLD_LOCAL) : nullptr;
        if (library == nullptr) {
            return std::nullopt;
        }
        LibUnwind functions;
        bool complete = true;
        auto bind_in = [&](void* handle, auto& function, const char* name) {
            function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(handle, name));
            complete = complete && function != nullptr;
        };
        bind_in(library, functions.accessors, "_UPT_accessors");
        bind_in(library, functions.create_context, "_UPT_create");
        bind_in(library, functions.destroy_context, "_UPT_destroy");
        // The unw_* names are macros for these (libunwind-x86_64.h).
        bind_in(unwinder, functions.create_address_space, "_Ux86_64_create_addr_space");
        bind_in(unwinder, functions.destroy_address_space, "_Ux86_64_destroy_addr_space");
        bind_in(unwinder, functions.init_remote, "_Ux86_64_init_remote");
        bind_in(unwinder, functions.get_register, "_Ux86_64_get_reg");
        bind_in(unwinder, functions.get_procedure_name, "_Ux86_64_get_proc_name");
        bind_in(unwinder, functions.step, "_Ux86_64_step");
        return complete ? std::optional(functions) : std::nullopt;
    }
};

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
    const LibUnwind* unwind = LibUnwind::get();
    if (unwind == nullptr) {
        return frames;
    }
    unw_addr_space_t address_space = unwind->create_address_space(unwind->accessors, 0);
    if (address_space == nullptr) {
        return frames;
    }
    void* context = unwind->create_context(host_tid);
    unw_cursor_t cursor;
    if (context != nullptr && unwind->init_remote(&cursor, address_space, context) == 0) {
        do {
            unw_word_t pc = 0;
            if (unwind->get_register(&cursor, UNW_REG_IP, &pc) != 0 || pc == 0) {
                break;
            }
            StackFrame frame;
            frame.pc = pc;
            char name[512];
            unw_word_t offset = 0;
            if (unwind->get_procedure_name(&cursor, name, sizeof name, &offset) == 0) {
                frame.function = name;
            }
            frames.push_back(std::move(frame));
        } while (frames.size() < max_frames && unwind->step(&cursor) > 0);
    }
    if (context != nullptr) {
        unwind->destroy_context(context);
    }
    unwind->destroy_address_space(address_space);
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
