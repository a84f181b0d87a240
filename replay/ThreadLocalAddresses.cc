#include "ThreadLocalAddresses.h"

#include <elf.h>

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string_view>
#include <vector>

namespace hermit::replay {

namespace {

// The path of the libc process `host_pid` maps, as the process sees it; empty when none.
std::string mapped_libc(pid_t host_pid) {
    std::ifstream maps("/proc/" + std::to_string(host_pid) + "/maps");
    std::string line;
    while (std::getline(maps, line)) {
        const size_t slash = line.find('/');
        if (slash != std::string::npos && line.find("/libc.so", slash) != std::string::npos) {
            return line.substr(slash);
        }
    }
    return {};
}

template <typename T> std::optional<T> value_at(const std::vector<char>& file, uint64_t offset) {
    if (offset > file.size() || file.size() - offset < sizeof(T)) {
        return std::nullopt;
    }
    T value;
    std::memcpy(&value, file.data() + offset, sizeof value);
    return value;
}

// Descriptor `name`'s words {size in bits, count, offset}, read from the file where the symbol's section
// puts it.
std::optional<std::array<uint32_t, 3>> descriptor(const std::vector<char>& file, std::string_view name) {
    const auto header = value_at<Elf64_Ehdr>(file, 0);
    if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0) {
        return std::nullopt;
    }
    auto section = [&](uint32_t index) {
        return value_at<Elf64_Shdr>(file, header->e_shoff + uint64_t{index} * sizeof(Elf64_Shdr));
    };
    for (uint16_t index = 0; index < header->e_shnum; ++index) {
        const auto symbols = section(index);
        if (!symbols || (symbols->sh_type != SHT_DYNSYM && symbols->sh_type != SHT_SYMTAB)) {
            continue;
        }
        const auto names = section(symbols->sh_link);
        if (!names) {
            continue;
        }
        for (uint64_t at = 0; at + sizeof(Elf64_Sym) <= symbols->sh_size; at += sizeof(Elf64_Sym)) {
            const auto symbol = value_at<Elf64_Sym>(file, symbols->sh_offset + at);
            if (!symbol || symbol->st_shndx == SHN_UNDEF || symbol->st_shndx >= header->e_shnum ||
                symbol->st_name >= names->sh_size) {
                continue;
            }
            const uint64_t start = names->sh_offset + symbol->st_name;
            if (start + name.size() + 1 > file.size() ||
                std::memcmp(file.data() + start, name.data(), name.size()) != 0 ||
                file[start + name.size()] != '\0') {
                continue;
            }
            const auto holder = section(symbol->st_shndx);
            if (!holder || symbol->st_value < holder->sh_addr) {
                return std::nullopt;
            }
            return value_at<std::array<uint32_t, 3>>(file, holder->sh_offset +
                                                               (symbol->st_value - holder->sh_addr));
        }
    }
    return std::nullopt;
}

// The offset of a `bits`-wide field from its descriptor.
std::optional<uint32_t> field(const std::vector<char>& file, std::string_view name, uint32_t bits) {
    const auto words = descriptor(file, name);
    return words && (*words)[0] == bits ? std::optional((*words)[2]) : std::nullopt;
}

std::optional<ThreadLocalAddresses::Layout> layout_of(const std::vector<char>& file) {
    const auto tls_offset = field(file, "_thread_db_link_map_l_tls_offset", 64);
    const auto tls_modid = field(file, "_thread_db_link_map_l_tls_modid", 64);
    const auto dtv_pointer = field(file, "_thread_db_pthread_dtvp", 64);
    const auto dtv_entries = descriptor(file, "_thread_db_dtv_dtv");
    const auto entry_pointer = field(file, "_thread_db_dtv_t_pointer_val", 64);
    if (!tls_offset || !tls_modid || !dtv_pointer || !dtv_entries || !entry_pointer ||
        (*dtv_entries)[0] % 8 != 0) {
        return std::nullopt;
    }
    return ThreadLocalAddresses::Layout{*tls_offset, *tls_modid, *dtv_pointer, (*dtv_entries)[0] / 8,
                                        *entry_pointer};
}

} // namespace

std::optional<ThreadLocalAddresses::Layout> ThreadLocalAddresses::layout(pid_t host_pid) {
    const std::string libc = mapped_libc(host_pid);
    if (libc.empty()) {
        return std::nullopt;
    }
    if (auto known = layouts_.find(libc); known != layouts_.end()) {
        return known->second;
    }
    // The process's own view of the path (its mount namespace may show other files than hermit's).
    std::ifstream in("/proc/" + std::to_string(host_pid) + "/root" + libc, std::ios::binary);
    const std::vector<char> file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return layouts_[libc] = layout_of(file);
}

std::optional<uint64_t> ThreadLocalAddresses::address(tracer::Task& task, uint64_t offset,
                                                      uint64_t link_map) {
    const std::optional<Layout> fields = layout(task.host_pid());
    uint64_t block_offset = 0;
    if (!fields || !task.read(link_map + fields->tls_offset, &block_offset, sizeof block_offset) ||
        block_offset == 0) {
        return std::nullopt; // 0: the module has no TLS
    }
    const uint64_t thread_pointer = task.registers().fs_base;
    if (static_cast<int64_t>(block_offset) > 0) {
        return thread_pointer - block_offset + offset; // a block at a fixed place: loaded at start-up
    }
    // glibc's marker for a block allocated at the thread's first use (dlopen): the thread's dtv has it.
    uint64_t module = 0;
    uint64_t dtv = 0;
    uint64_t block = 0;
    if (!task.read(link_map + fields->tls_modid, &module, sizeof module) ||
        !task.read(thread_pointer + fields->dtv_pointer, &dtv, sizeof dtv) ||
        !task.read(dtv + module * fields->dtv_entry_size + fields->dtv_entry_pointer, &block, sizeof block)) {
        return std::nullopt;
    }
    constexpr uint64_t kUnallocated = ~uint64_t{0};
    if (block == 0 || block == kUnallocated) {
        return std::nullopt; // this thread has not used the module's variables yet
    }
    return block + offset;
}

} // namespace hermit::replay
