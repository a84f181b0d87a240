#include "SyscallBuffer.h"

#include "Task.h"

#include <sys/syscall.h>

#include <algorithm>
#include <cstring>
#include <filesystem>

namespace hermit::tracer::syscall_buffer {

namespace {

using Header = hermit_buffer_header;
using Entry = hermit_buffer_entry;

constexpr size_t kEntriesCapacity = HERMIT_BUFFER_SIZE - sizeof(Header);
size_t entry_size(const SyscallEvent& call) {
    size_t path_bytes = 0;
    for (const std::string& path : call.paths) {
        path_bytes += path.size() + 1;
    }
    return hermit_buffer_entry_size(path_bytes);
}

} // namespace

const std::set<int>& replay_call_site_syscalls() {
    static const std::set<int> numbers = {SYS_access,     SYS_faccessat,  SYS_faccessat2,
                                          SYS_readlinkat, SYS_newfstatat, SYS_openat};
    return numbers;
}

const std::set<int>& call_site_syscalls() {
    static const std::set<int> numbers = [] {
        std::set<int> answered = {SYS_unlink, SYS_unlinkat, SYS_link,   SYS_linkat,
                                  SYS_mkdir,  SYS_mkdirat,  SYS_rename, SYS_renameat};
        answered.insert(replay_call_site_syscalls().begin(), replay_call_site_syscalls().end());
        return answered;
    }();
    return numbers;
}

std::vector<size_t> path_arguments(int number) {
    std::vector<size_t> arguments;
    const unsigned mask = hermit_buffer_path_arguments(number);
    for (size_t argument = 0; argument < 6; argument++) {
        if ((mask >> argument) & 1) {
            arguments.push_back(argument);
        }
    }
    return arguments;
}

std::string preload_library() {
    constexpr const char* kName = "libhermit_preload.so";
    std::error_code error;
    const std::filesystem::path beside =
        std::filesystem::read_symlink("/proc/self/exe", error).parent_path() / kName;
    if (!error && std::filesystem::exists(beside, error)) {
        return beside.string();
    }
    return std::filesystem::exists(HERMIT_PRELOAD_BUILD_PATH, error) ? HERMIT_PRELOAD_BUILD_PATH : "";
}

int64_t register_buffer(Task& task, const SyscallStop& stop, Mode mode) {
    const uint64_t address = stop.args[0];
    if (address == 0) {
        task.set_syscall_buffer(0, {});
        return 0;
    }
    SharedMemory memory;
    if (stop.args[1] == HERMIT_BUFFER_SIZE) {
        memory = SharedMemory::map(
            duplicate_guest_descriptor(task.host_pid(), static_cast<int>(stop.args[2])), HERMIT_BUFFER_SIZE);
    }
    if (memory.empty()) {
        return -ENOSYS; // not the library's call: the guest's own use of the number, unknown to the kernel
    }
    const Header header{static_cast<uint32_t>(mode), 0, 0, 0};
    std::memcpy(memory.bytes().data(), &header, sizeof header);
    task.set_syscall_buffer(address, std::move(memory));
    return 0;
}

std::vector<SyscallEvent> take(Task& task) {
    const std::span<uint8_t> buffer = task.syscall_buffer_memory();
    std::vector<SyscallEvent> calls;
    if (buffer.empty()) {
        return calls;
    }
    Header header{};
    std::memcpy(&header, buffer.data(), sizeof header);
    if (header.done == 0 || header.used > kEntriesCapacity) {
        return calls;
    }
    const std::span<const uint8_t> entries = buffer.subspan(sizeof(Header), header.used);
    size_t offset = 0;
    for (uint32_t index = 0; index < header.done && offset + sizeof(Entry) <= entries.size(); index++) {
        Entry entry{};
        std::memcpy(&entry, entries.data() + offset, sizeof entry);
        if (entry.size < sizeof(Entry) || offset + entry.size > entries.size()) {
            break;
        }
        SyscallEvent call{entry.number, {entry.args, entry.args + 6}, entry.result, false, {}, true, {}};
        const char* text = reinterpret_cast<const char*>(entries.data() + offset + sizeof(Entry));
        const char* end = reinterpret_cast<const char*>(entries.data() + offset + entry.size);
        const size_t path_count = path_arguments(entry.number).size();
        for (size_t path = 0; path < path_count && text < end; path++) {
            call.paths.emplace_back(text, strnlen(text, static_cast<size_t>(end - text)));
            text += call.paths.back().size() + 1;
        }
        calls.push_back(std::move(call));
        offset += entry.size;
    }
    const Header emptied{header.mode, 0, 0, 0};
    std::memcpy(buffer.data(), &emptied, sizeof emptied);
    return calls;
}

bool place(Task& task, const std::vector<const SyscallEvent*>& calls) {
    const std::span<uint8_t> buffer = task.syscall_buffer_memory();
    if (buffer.empty()) {
        return false;
    }
    uint8_t* const entries = buffer.data() + sizeof(Header);
    size_t used = 0;
    for (const SyscallEvent* call : calls) {
        const size_t size = entry_size(*call);
        if (used + size > kEntriesCapacity) {
            break;
        }
        Entry entry{call->number, static_cast<uint32_t>(size), call->result, {}};
        std::copy_n(call->args.begin(), std::min<size_t>(call->args.size(), 6), entry.args);
        std::memset(entries + used, 0, size);
        std::memcpy(entries + used, &entry, sizeof entry);
        size_t text = used + sizeof(Entry);
        for (const std::string& path : call->paths) {
            std::memcpy(entries + text, path.c_str(), path.size() + 1);
            text += path.size() + 1;
        }
        used += size;
    }
    if (used == 0) {
        return false;
    }
    const Header header{static_cast<uint32_t>(Mode::Replay), 0, 0, static_cast<uint32_t>(used)};
    std::memcpy(buffer.data(), &header, sizeof header);
    return true;
}

} // namespace hermit::tracer::syscall_buffer
