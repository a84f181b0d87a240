#include "VdsoClockPage.h"

#include "tracer/ProcessMemoryFile.h"
#include "tracer/Task.h"

#include <spdlog/spdlog.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include <utility>

namespace hermit::tracer::virt {
namespace {

// The page: calls made since the last publish, which clocks it holds (bit per id), their values.
struct PageData {
    uint64_t calls = 0;
    uint64_t valid = 0;
    int64_t values[VdsoClockPage::kClocks] = {};
};
static_assert(sizeof(PageData) <= VdsoClockPage::kCodeOffset);

void append(std::vector<uint8_t>& code, std::initializer_list<uint8_t> bytes) {
    code.insert(code.end(), bytes);
}

// Little-endian, as x86 immediates are.
template <typename T> void append_value(std::vector<uint8_t>& code, T value) {
    for (size_t index = 0; index < sizeof value; index++) {
        code.push_back(static_cast<uint8_t>(static_cast<uint64_t>(value) >> (8 * index)));
    }
}

} // namespace

std::vector<uint8_t> VdsoClockPage::code() {
    // clock_gettime(clockid_t id /* edi */, struct timespec* ts /* rsi */)
    std::vector<uint8_t> code;
    append(code, {0x83, 0xFF, kClocks - 1}); // cmp edi, 11
    append(code, {0x77, 0});                 // ja fallback (patched below)
    const size_t above = code.size() - 1;
    append(code, {0x89, 0xFF}); // mov edi, edi (zero-extend the id)
    append(code, {0x48, 0xB9}); // movabs rcx, kAddress
    append_value(code, kAddress);
    append(code, {0x48, 0x0F, 0xA3, 0x79, offsetof(PageData, valid)}); // bt [rcx+valid], rdi
    append(code, {0x73, 0});                                           // jnc fallback
    const size_t invalid = code.size() - 1;
    append(code, {0x48, 0x8B, 0x44, 0xF9, offsetof(PageData, values)}); // mov rax, [rcx+rdi*8+values]
    append(code, {0x48, 0x8B, 0x11});                                   // mov rdx, [rcx] (calls)
    append(code, {0x48, 0xFF, 0xC2});                                   // inc rdx
    append(code, {0x48, 0x89, 0x11});                                   // mov [rcx], rdx
    append(code, {0x48, 0x69, 0xD2});                                   // imul rdx, rdx, step
    append_value(code, static_cast<uint32_t>(VirtualClock::kEventStepNs));
    append(code, {0x48, 0x01, 0xD0}); // add rax, rdx
    append(code, {0x31, 0xD2});       // xor edx, edx
    append(code, {0xB9});             // mov ecx, 1e9
    append_value(code, static_cast<uint32_t>(1000000000));
    append(code, {0x48, 0xF7, 0xF1});       // div rcx: rax = seconds, rdx = nanoseconds
    append(code, {0x48, 0x89, 0x06});       // mov [rsi], rax
    append(code, {0x48, 0x89, 0x56, 0x08}); // mov [rsi+8], rdx
    append(code, {0x31, 0xC0});             // xor eax, eax
    append(code, {0xC3});                   // ret
    const size_t fallback = code.size();
    append(code, {0xB8}); // mov eax, SYS_clock_gettime
    append_value(code, static_cast<uint32_t>(SYS_clock_gettime));
    append(code, {0x0F, 0x05, 0xC3}); // syscall; ret
    code[above] = static_cast<uint8_t>(fallback - (above + 1));
    code[invalid] = static_cast<uint8_t>(fallback - (invalid + 1));
    return code;
}

std::vector<uint8_t> VdsoClockPage::entry_jump() {
    std::vector<uint8_t> jump = {0x48, 0xB8}; // movabs rax, code
    append_value(jump, kAddress + kCodeOffset);
    append(jump, {0xFF, 0xE0}); // jmp rax
    return jump;
}

void VdsoClockPage::on_exec(pid_t host_pid, std::vector<uint64_t> clock_gettime_entries) {
    processes_[host_pid] = ProcessPage{};
    if (clock_gettime_entries.empty()) {
        unmapped_.erase(host_pid);
        return;
    }
    unmapped_[host_pid] = std::move(clock_gettime_entries);
}

bool VdsoClockPage::map_page(Task& task, const std::vector<uint64_t>& entries) {
    const int64_t mapped = task.inject_syscall(SYS_mmap, {kAddress, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
                                                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
                                                          static_cast<uint64_t>(-1), 0});
    if (static_cast<uint64_t>(mapped) != kAddress) {
        spdlog::debug("cannot map the vDSO clock page of process {}: {}", task.pid(), mapped);
        return false;
    }
    const std::vector<uint8_t> instructions = code();
    const std::vector<uint8_t> jump = entry_jump();
    if (!task.write(kAddress + kCodeOffset, instructions.data(), instructions.size())) {
        return false;
    }
    ProcessMemoryFile text_writer(task.host_tid()); // the vDSO's text is read-only
    for (const uint64_t entry : entries) {
        text_writer.write(entry, jump.data(), jump.size());
    }
    return true;
}

VdsoClockPage::ProcessPage& VdsoClockPage::page_of(Task& task) {
    auto known = processes_.find(task.host_pid());
    if (known == processes_.end()) {
        // Forked since: it has its parent's page, if any, with the parent's calls (ticked as its own).
        uint64_t calls = 0;
        known =
            processes_.emplace(task.host_pid(), ProcessPage{task.read(kAddress, &calls, sizeof calls)}).first;
    }
    return known->second;
}

void VdsoClockPage::fold(Task& task, VirtualClock& clock) {
    if (const auto unmapped = unmapped_.find(task.host_pid()); unmapped != unmapped_.end()) {
        // A thread stopped in the syscall stub of clock_gettime returns into the bytes the jump replaces:
        // the page waits for the process's next syscall.
        const uint64_t resume_at = task.registers().rip;
        const uint64_t jump_size = entry_jump().size();
        for (const uint64_t entry : unmapped->second) {
            if (resume_at >= entry && resume_at < entry + jump_size) {
                return;
            }
        }
        const std::vector<uint64_t> entries = std::move(unmapped->second);
        unmapped_.erase(unmapped);
        processes_[task.host_pid()] = ProcessPage{map_page(task, entries)};
        return;
    }
    ProcessPage& page = page_of(task);
    uint64_t calls = 0;
    if (!page.present || !task.read(kAddress, &calls, sizeof calls)) {
        return;
    }
    for (; page.folded_calls < calls; page.folded_calls++) {
        clock.tick();
    }
    page.folded_at_this_stop = true;
}

void VdsoClockPage::refresh(Task& task, VirtualClock& clock) {
    if (unmapped_.count(task.host_pid()) != 0) {
        return;
    }
    ProcessPage& page = page_of(task);
    // The guest runs next: a later fold() must read the counter again.
    const bool folded = std::exchange(page.folded_at_this_stop, false);
    if (!page.present || page.written_at == clock.elapsed_ns()) {
        return;
    }
    if (!folded) {
        fold(task, clock);
        page.folded_at_this_stop = false;
    }
    PageData data;
    for (int id = 0; id < kClocks; id++) {
        if (const auto value = clock.read(id)) {
            data.valid |= 1ULL << id;
            data.values[id] = *value;
        }
    }
    if (task.write(kAddress, &data, sizeof data)) {
        page.written_at = clock.elapsed_ns();
        page.folded_calls = 0;
    }
}

} // namespace hermit::tracer::virt
