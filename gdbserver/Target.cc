#include "Target.h"

#include "Amd64Registers.h"

#include <algorithm>

namespace hermit::gdbserver {

const ThreadResume* ResumeRequest::action_for(const ThreadId& thread) const {
    for (const ThreadResume& action : actions) {
        if (action.threads.matches(thread)) {
            return &action;
        }
    }
    return nullptr;
}

std::optional<std::vector<uint8_t>> Target::read_register(const ThreadId& thread, int regno) {
    auto info = amd64::register_info(regno);
    std::vector<uint8_t> all = read_registers(thread);
    if (!info || all.size() < info->offset + info->size) {
        return std::nullopt;
    }
    auto first = all.begin() + static_cast<std::ptrdiff_t>(info->offset);
    return std::vector<uint8_t>(first, first + static_cast<std::ptrdiff_t>(info->size));
}

bool Target::write_register(const ThreadId& thread, int regno, std::span<const uint8_t> bytes) {
    auto info = amd64::register_info(regno);
    std::vector<uint8_t> all = read_registers(thread);
    if (!info || bytes.size() != info->size || all.size() < info->offset + info->size) {
        return false;
    }
    std::copy(bytes.begin(), bytes.end(), all.begin() + static_cast<std::ptrdiff_t>(info->offset));
    return write_registers(thread, all);
}

} // namespace hermit::gdbserver
