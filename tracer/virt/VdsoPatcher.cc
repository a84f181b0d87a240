#include "VdsoPatcher.h"

#include <elf.h>
#include <sys/syscall.h>

#include <algorithm>
#include <cstring>
#include <set>
#include <utility>

namespace hermit::tracer::virt {
namespace {

// A vDSO image is a few pages; anything larger in a header is corruption, not a vDSO.
constexpr uint64_t kMaxImageSize = 1 << 20;

const std::pair<const char*, int> kPatchedFunctions[] = {
    {"__vdso_clock_gettime", SYS_clock_gettime},
    {"__vdso_gettimeofday", SYS_gettimeofday},
    {"__vdso_time", SYS_time},
    {"__vdso_getcpu", SYS_getcpu},
    {"__vdso_clock_getres", SYS_clock_getres},
};

// The image copied out of the guest in one read, read back at guest addresses: parsing the guest's copy
// in place took a read per header and symbol, some sixty per exec.
class ImageCopy : public GuestMemory {
public:
    ImageCopy(uint64_t base, std::vector<uint8_t> bytes) : base_(base), bytes_(std::move(bytes)) {}

    bool read(uint64_t address, void* buffer, size_t length) override {
        if (address < base_ || address - base_ > bytes_.size() ||
            length > bytes_.size() - (address - base_)) {
            return false;
        }
        std::memcpy(buffer, bytes_.data() + (address - base_), length);
        return true;
    }
    bool write(uint64_t, const void*, size_t) override { return false; }

private:
    uint64_t base_;
    std::vector<uint8_t> bytes_;
};

} // namespace

std::vector<VdsoFunction> vdso_functions(GuestMemory& guest, uint64_t base) {
    std::vector<VdsoFunction> functions;
    const auto header = guest.read_value<Elf64_Ehdr>(base);
    if (!header || std::memcmp(header->e_ident, ELFMAG, SELFMAG) != 0 ||
        header->e_ident[EI_CLASS] != ELFCLASS64 || header->e_shentsize != sizeof(Elf64_Shdr) ||
        header->e_phentsize != sizeof(Elf64_Phdr) || header->e_shoff > kMaxImageSize ||
        header->e_phoff > kMaxImageSize) {
        return functions;
    }
    // The section headers come last in the image, after the symbols and names they describe.
    const uint64_t image_size = std::max<uint64_t>(header->e_shoff + header->e_shnum * sizeof(Elf64_Shdr),
                                                   header->e_phoff + header->e_phnum * sizeof(Elf64_Phdr));
    auto bytes = guest.read_bytes(base, image_size);
    if (!bytes) {
        return functions;
    }
    ImageCopy memory(base, std::move(*bytes));
    // Symbol values are link-time addresses; the first PT_LOAD's p_vaddr maps to `base`.
    uint64_t link_base = 0;
    for (uint16_t index = 0; index < header->e_phnum; ++index) {
        const auto program =
            memory.read_value<Elf64_Phdr>(base + header->e_phoff + index * sizeof(Elf64_Phdr));
        if (program && program->p_type == PT_LOAD) {
            link_base = program->p_vaddr - program->p_offset;
            break;
        }
    }
    auto section = [&](uint32_t index) {
        return memory.read_value<Elf64_Shdr>(base + header->e_shoff + index * sizeof(Elf64_Shdr));
    };
    for (uint16_t index = 0; index < header->e_shnum; ++index) {
        const auto symbols = section(index);
        if (!symbols || symbols->sh_type != SHT_DYNSYM || symbols->sh_entsize != sizeof(Elf64_Sym) ||
            symbols->sh_size > kMaxImageSize) {
            continue;
        }
        const auto strings = section(symbols->sh_link);
        if (!strings || strings->sh_size > kMaxImageSize) {
            continue;
        }
        const auto names = memory.read_bytes(base + strings->sh_offset, strings->sh_size);
        if (!names) {
            continue;
        }
        for (uint64_t offset = 0; offset + sizeof(Elf64_Sym) <= symbols->sh_size;
             offset += sizeof(Elf64_Sym)) {
            const auto symbol = memory.read_value<Elf64_Sym>(base + symbols->sh_offset + offset);
            if (!symbol || ELF64_ST_TYPE(symbol->st_info) != STT_FUNC || symbol->st_shndx == SHN_UNDEF ||
                symbol->st_name >= names->size()) {
                continue;
            }
            const char* name = reinterpret_cast<const char*>(names->data()) + symbol->st_name;
            const size_t name_length = strnlen(name, names->size() - symbol->st_name);
            functions.push_back(
                {std::string(name, name_length), base + symbol->st_value - link_base, symbol->st_size});
        }
    }
    return functions;
}

std::vector<uint8_t> syscall_stub(int syscall_number) {
    std::vector<uint8_t> stub = {0xb8, 0, 0, 0, 0, 0x0f, 0x05, 0xc3};
    const auto number = static_cast<uint32_t>(syscall_number);
    std::memcpy(&stub[1], &number, sizeof number);
    return stub;
}

std::vector<std::string> patch_vdso(GuestMemory& writer, const std::vector<VdsoFunction>& functions) {
    std::vector<std::string> patched;
    std::set<uint64_t> done;
    for (const VdsoFunction& function : functions) {
        for (const auto& [name, number] : kPatchedFunctions) {
            const std::vector<uint8_t> stub = syscall_stub(number);
            // The unprefixed names (clock_gettime, ...) are aliases at the same address.
            if (function.name != name || function.size < stub.size() || done.count(function.address)) {
                continue;
            }
            if (writer.write(function.address, stub.data(), stub.size())) {
                done.insert(function.address);
                patched.push_back(function.name);
            }
        }
    }
    return patched;
}

} // namespace hermit::tracer::virt
