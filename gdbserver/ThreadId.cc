#include "ThreadId.h"

#include "Hex.h"

#include <fmt/format.h>

namespace hermit::gdbserver {

namespace {

bool part_matches(int64_t pattern, int64_t value) {
    return pattern == ThreadId::kAny || pattern == ThreadId::kAll || pattern == value;
}

std::optional<int64_t> parse_part(std::string_view text) {
    if (text == "-1") {
        return ThreadId::kAll;
    }
    auto value = parse_hex_number(text);
    if (!value || *value > static_cast<uint64_t>(INT64_MAX)) {
        return std::nullopt;
    }
    return static_cast<int64_t>(*value);
}

std::string format_part(int64_t value) {
    return value == ThreadId::kAll ? "-1" : format_hex_number(static_cast<uint64_t>(value));
}

} // namespace

bool ThreadId::matches(const ThreadId& thread) const {
    return part_matches(pid, thread.pid) && part_matches(tid, thread.tid);
}

std::optional<ThreadId> parse_thread_id(std::string_view text) {
    if (!text.starts_with('p')) {
        auto tid = parse_part(text);
        if (!tid) {
            return std::nullopt;
        }
        return ThreadId{ThreadId::kAny, *tid};
    }
    text.remove_prefix(1);
    size_t dot = text.find('.');
    auto pid = parse_part(text.substr(0, dot));
    if (!pid) {
        return std::nullopt;
    }
    if (dot == std::string_view::npos) {
        return ThreadId{*pid, ThreadId::kAll};
    }
    auto tid = parse_part(text.substr(dot + 1));
    if (!tid) {
        return std::nullopt;
    }
    return ThreadId{*pid, *tid};
}

std::string format_thread_id(const ThreadId& thread, bool multiprocess) {
    if (multiprocess) {
        return fmt::format("p{}.{}", format_part(thread.pid), format_part(thread.tid));
    }
    return format_part(thread.tid);
}

} // namespace hermit::gdbserver
