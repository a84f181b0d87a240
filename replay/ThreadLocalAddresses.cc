#include "ThreadLocalAddresses.h"

#include <elf.h>

#include <array>
#include <cstring>
#include <fstream>
#include <iterator>
#include <sstream>
#include <vector>

namespace hermit::replay {

namespace {

constexpr const char* kDescriptorSymbol = "_thread_db_link_map_l_tls_offset";

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

// The descriptor's third word (the field's offset), read from the file where the symbol's section puts it.
std::optional<uint32_t> descriptor_offset(const std::vector<char>& file) {
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
            const uint64_t name = names->sh_offset + symbol->st_name;
            const size_t length = std::strlen(kDescriptorSymbol);
            if (name + length + 1 > file.size() ||
                std::memcmp(file.data() + name, kDescriptorSymbol, length + 1) != 0) {
                continue;
            }
            const auto holder = section(symbol->st_shndx);
            if (!holder || symbol->st_value < holder->sh_addr) {
                return std::nullopt;
            }
            const auto words = value_at<std::array<uint32_t, 3>>(
                file, holder->sh_offset + (symbol->st_value - holder->sh_addr));
            // {size in bits, count, offset}: a 64-bit field, one of it.
            if (!words || (*words)[0] != 64) {
                return std::nullopt;
            }
            return (*words)[2];
        }
    }
    return std::nullopt;
}

} // namespace

std::optional<uint32_t> ThreadLocalAddresses::field_offset(pid_t host_pid) {
    const std::string libc = mapped_libc(host_pid);
    if (libc.empty()) {
        return std::nullopt;
    }
    if (auto known = field_offsets_.find(libc); known != field_offsets_.end()) {
        return known->second;
    }
    // The process's own view of the path (its mount namespace may show other files than hermit's).
    std::ifstream in("/proc/" + std::to_string(host_pid) + "/root" + libc, std::ios::binary);
    const std::vector<char> file{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    return field_offsets_[libc] = descriptor_offset(file);
}

std::optional<uint64_t> ThreadLocalAddresses::address(tracer::Task& task, uint64_t offset,
                                                      uint64_t link_map) {
    const std::optional<uint32_t> field = field_offset(task.host_pid());
    uint64_t block_offset = 0;
    if (!field || !task.read(link_map + *field, &block_offset, sizeof block_offset)) {
        return std::nullopt;
    }
    // 0: the module has no TLS; a "negative" offset: glibc's markers for a block allocated at first use.
    if (block_offset == 0 || static_cast<int64_t>(block_offset) < 0) {
        return std::nullopt;
    }
    return task.registers().fs_base - block_offset + offset;
}

} // namespace hermit::replay
