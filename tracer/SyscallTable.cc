#include "SyscallTable.h"

#include <sys/syscall.h>

#include <algorithm>
#include <string>
#include <unordered_map>
#include <vector>

namespace hermit::tracer {

namespace {

// Index by number: rows are ascending but numbers have gaps (335-423 are unassigned on x86_64).
const std::vector<const SyscallRow*>& rows_by_number() {
    static const std::vector<const SyscallRow*> index = [] {
        auto table = syscall_table();
        std::vector<const SyscallRow*> result(static_cast<size_t>(table.back().number) + 1, nullptr);
        for (const SyscallRow& row : table) {
            result[static_cast<size_t>(row.number)] = &row;
        }
        return result;
    }();
    return index;
}

const std::unordered_map<std::string_view, const SyscallRow*>& rows_by_name() {
    static const std::unordered_map<std::string_view, const SyscallRow*> index = [] {
        std::unordered_map<std::string_view, const SyscallRow*> result;
        for (const SyscallRow& row : syscall_table()) {
            result.emplace(row.name, &row);
        }
        return result;
    }();
    return index;
}

} // namespace

const SyscallRow* find_syscall(int number) {
    const auto& index = rows_by_number();
    if (number < 0 || static_cast<size_t>(number) >= index.size()) {
        return nullptr;
    }
    return index[static_cast<size_t>(number)];
}

const SyscallRow* find_syscall(std::string_view name) {
    const auto& index = rows_by_name();
    auto found = index.find(name);
    return found == index.end() ? nullptr : found->second;
}

size_t open_flags_argument(int number) {
    return path_argument(number) + 1;
}

size_t path_argument(int number) {
    return number == SYS_open || number == SYS_creat || number == SYS_execve || number == SYS_chdir ? 0 : 1;
}

} // namespace hermit::tracer
