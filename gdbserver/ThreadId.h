#pragma once
// ThreadId: a gdb thread id, a (pid, tid) pair in which either part may be the special value kAny ("0",
// any thread) or kAll ("-1", every thread). Because those specials exist, a ThreadId from gdb is a
// pattern to match against the target's threads, not necessarily one thread.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace hermit::gdbserver {

struct ThreadId {
    static constexpr int64_t kAny = 0;
    static constexpr int64_t kAll = -1;

    int64_t pid = kAny;
    int64_t tid = kAny;

    bool operator==(const ThreadId&) const = default;

    // Whether the concrete thread `thread` is one of those this pattern names.
    bool matches(const ThreadId& thread) const;
};

// Parses "p<pid>.<tid>", "p<pid>" (all threads of pid) or "<tid>" with hex numbers or -1.
std::optional<ThreadId> parse_thread_id(std::string_view text);
// Formats a concrete thread id: "p<pid>.<tid>" when multiprocess was negotiated, else "<tid>".
std::string format_thread_id(const ThreadId& thread, bool multiprocess);

} // namespace hermit::gdbserver
