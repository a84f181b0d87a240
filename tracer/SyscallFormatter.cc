#include "SyscallFormatter.h"

#include "KernelNames.h"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <optional>
#include <string_view>

namespace hermit::tracer {

namespace {

constexpr size_t kMaxPathLength = 4096;
constexpr uint64_t kPageSize = 4096;
constexpr int kAtFdcwd = -100;

struct FlagName {
    uint64_t mask;
    std::string_view name;
};

// Names each flag of `table` present in `value` (a multi-bit entry matches only when all its bits are
// set), in table order; leftover bits are appended in hex.
std::string join_flags(uint64_t value, std::initializer_list<FlagName> table, std::string prefix = {}) {
    std::string text = std::move(prefix);
    for (const FlagName& flag : table) {
        if ((value & flag.mask) == flag.mask) {
            if (!text.empty()) {
                text += '|';
            }
            text += flag.name;
            value &= ~flag.mask;
        }
    }
    if (value != 0 || text.empty()) {
        if (!text.empty()) {
            text += '|';
        }
        text += fmt::format("{:#x}", value);
    }
    return text;
}

std::optional<std::string_view> lookup(uint64_t value, std::initializer_list<FlagName> table) {
    for (const FlagName& entry : table) {
        if (entry.mask == value) {
            return entry.name;
        }
    }
    return std::nullopt;
}

std::string hex(uint64_t value) {
    return value == 0 ? "0" : fmt::format("{:#x}", value);
}
std::string pointer(uint64_t value) {
    return value == 0 ? "NULL" : fmt::format("{:#x}", value);
}

std::optional<std::vector<uint8_t>> read_buffer(GuestMemory& memory, uint64_t address, size_t length) {
    std::vector<uint8_t> bytes(length);
    if (length != 0 && !memory.read(address, bytes.data(), length)) {
        return std::nullopt;
    }
    return bytes;
}

// Reads a NUL-terminated string page by page, so a string ending just before an unmapped page is still
// read. `complete` tells whether the NUL was found within max_length bytes.
std::optional<std::string> read_c_string(GuestMemory& memory, uint64_t address, size_t max_length,
                                         bool& complete) {
    std::string text;
    complete = false;
    while (text.size() < max_length) {
        uint64_t chunk = std::min<uint64_t>(kPageSize - (address % kPageSize), max_length - text.size());
        std::string buffer(chunk, '\0');
        if (!memory.read(address, buffer.data(), chunk)) {
            if (text.empty()) {
                return std::nullopt;
            }
            return text;
        }
        size_t end = buffer.find('\0');
        if (end != std::string::npos) {
            text.append(buffer, 0, end);
            complete = true;
            return text;
        }
        text += buffer;
        address += chunk;
    }
    return text;
}

std::string quote_string(const std::string& text, bool truncated) {
    return quote_bytes(reinterpret_cast<const uint8_t*>(text.data()), text.size(), truncated);
}

std::string signal_text(int signal) {
    std::string_view name = signal_name(signal);
    return name.empty() ? std::to_string(signal) : std::string(name);
}

std::string format_sigset(const uint8_t* data, size_t length) {
    uint64_t bits = 0;
    std::copy_n(data, std::min<size_t>(length, sizeof bits), reinterpret_cast<uint8_t*>(&bits));
    // Like strace, a mostly full set is shown as the complement of the signals it lacks.
    bool inverted = std::popcount(bits) > 32;
    if (inverted) {
        bits = ~bits;
    }
    std::string text = inverted ? "~[" : "[";
    bool first = true;
    for (int signal = 1; signal <= 64; ++signal) {
        if ((bits >> (signal - 1)) & 1) {
            if (!first) {
                text += ' ';
            }
            first = false;
            std::string name = signal_text(signal);
            text += name.starts_with("SIG") ? name.substr(3) : name;
        }
    }
    return text + "]";
}

std::string format_sigaction_flags(uint64_t flags) {
    return join_flags(flags, {{0x1, "SA_NOCLDSTOP"},
                              {0x2, "SA_NOCLDWAIT"},
                              {0x4, "SA_SIGINFO"},
                              {0x04000000, "SA_RESTORER"},
                              {0x08000000, "SA_ONSTACK"},
                              {0x10000000, "SA_RESTART"},
                              {0x40000000, "SA_NODEFER"},
                              {0x80000000, "SA_RESETHAND"}});
}

std::string format_poll_events(uint64_t events) {
    return join_flags(events, {{0x1, "POLLIN"},
                               {0x2, "POLLPRI"},
                               {0x4, "POLLOUT"},
                               {0x8, "POLLERR"},
                               {0x10, "POLLHUP"},
                               {0x20, "POLLNVAL"},
                               {0x40, "POLLRDNORM"},
                               {0x80, "POLLRDBAND"},
                               {0x100, "POLLWRNORM"},
                               {0x200, "POLLWRBAND"},
                               {0x400, "POLLMSG"},
                               {0x2000, "POLLRDHUP"}});
}

std::string format_clock(uint64_t clock) {
    auto name = lookup(clock, {{0, "CLOCK_REALTIME"},
                               {1, "CLOCK_MONOTONIC"},
                               {2, "CLOCK_PROCESS_CPUTIME_ID"},
                               {3, "CLOCK_THREAD_CPUTIME_ID"},
                               {4, "CLOCK_MONOTONIC_RAW"},
                               {5, "CLOCK_REALTIME_COARSE"},
                               {6, "CLOCK_MONOTONIC_COARSE"},
                               {7, "CLOCK_BOOTTIME"},
                               {8, "CLOCK_REALTIME_ALARM"},
                               {9, "CLOCK_BOOTTIME_ALARM"},
                               {11, "CLOCK_TAI"}});
    return name ? std::string(*name) : std::to_string(static_cast<int32_t>(clock));
}

std::string format_futex_op(uint64_t op) {
    constexpr uint64_t kPrivate = 128;
    constexpr uint64_t kClockRealtime = 256;
    auto name = lookup(op & ~(kPrivate | kClockRealtime), {{0, "FUTEX_WAIT"},
                                                           {1, "FUTEX_WAKE"},
                                                           {2, "FUTEX_FD"},
                                                           {3, "FUTEX_REQUEUE"},
                                                           {4, "FUTEX_CMP_REQUEUE"},
                                                           {5, "FUTEX_WAKE_OP"},
                                                           {6, "FUTEX_LOCK_PI"},
                                                           {7, "FUTEX_UNLOCK_PI"},
                                                           {8, "FUTEX_TRYLOCK_PI"},
                                                           {9, "FUTEX_WAIT_BITSET"},
                                                           {10, "FUTEX_WAKE_BITSET"},
                                                           {11, "FUTEX_WAIT_REQUEUE_PI"},
                                                           {12, "FUTEX_CMP_REQUEUE_PI"},
                                                           {13, "FUTEX_LOCK_PI2"}});
    if (!name) {
        return hex(op);
    }
    std::string text(*name);
    if (op & kPrivate) {
        text += "_PRIVATE";
    }
    if (op & kClockRealtime) {
        text += "|FUTEX_CLOCK_REALTIME";
    }
    return text;
}

std::string format_fcntl_cmd(uint64_t cmd) {
    auto name = lookup(
        cmd,
        {{0, "F_DUPFD"},         {1, "F_GETFD"},         {2, "F_SETFD"},        {3, "F_GETFL"},
         {4, "F_SETFL"},         {5, "F_GETLK"},         {6, "F_SETLK"},        {7, "F_SETLKW"},
         {8, "F_SETOWN"},        {9, "F_GETOWN"},        {10, "F_SETSIG"},      {11, "F_GETSIG"},
         {36, "F_OFD_GETLK"},    {37, "F_OFD_SETLK"},    {38, "F_OFD_SETLKW"},  {1030, "F_DUPFD_CLOEXEC"},
         {1031, "F_SETPIPE_SZ"}, {1032, "F_GETPIPE_SZ"}, {1033, "F_ADD_SEALS"}, {1034, "F_GET_SEALS"}});
    return name ? std::string(*name) : hex(cmd);
}

std::string format_ioctl_request(uint64_t request) {
    auto name = lookup(request, {{0x5401, "TCGETS"},
                                 {0x5402, "TCSETS"},
                                 {0x5403, "TCSETSW"},
                                 {0x5404, "TCSETSF"},
                                 {0x540F, "TIOCGPGRP"},
                                 {0x5410, "TIOCSPGRP"},
                                 {0x5413, "TIOCGWINSZ"},
                                 {0x5414, "TIOCSWINSZ"},
                                 {0x541B, "FIONREAD"},
                                 {0x5421, "FIONBIO"},
                                 {0x5450, "FIONCLEX"},
                                 {0x5451, "FIOCLEX"},
                                 {0x80045430, "TIOCGPTN"}});
    return name ? std::string(*name) : hex(request);
}

std::string format_file_type(uint32_t mode) {
    auto type = lookup(mode & 0170000, {{0140000, "S_IFSOCK"},
                                        {0120000, "S_IFLNK"},
                                        {0100000, "S_IFREG"},
                                        {060000, "S_IFBLK"},
                                        {040000, "S_IFDIR"},
                                        {020000, "S_IFCHR"},
                                        {010000, "S_IFIFO"}});
    std::string text = type ? std::string(*type) + "|" : std::string();
    return text + format_mode(mode & 07777);
}

std::string format_device(uint64_t device) {
    uint64_t major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfffULL);
    uint64_t minor = (device & 0xff) | ((device >> 12) & ~0xffULL);
    return fmt::format("makedev({:#x}, {:#x})", major, minor);
}

std::string format_wait_status(int32_t status) {
    int low = status & 0x7f;
    if (low == 0) {
        return fmt::format("[{{WIFEXITED(s) && WEXITSTATUS(s) == {}}}]", (status >> 8) & 0xff);
    }
    if (low == 0x7f) {
        return fmt::format("[{{WIFSTOPPED(s) && WSTOPSIG(s) == {}}}]", signal_text((status >> 8) & 0xff));
    }
    return fmt::format("[{{WIFSIGNALED(s) && WTERMSIG(s) == {}{}}}]", signal_text(low),
                       (status & 0x80) ? " && WCOREDUMP(s)" : "");
}

// O_* flags other than the access mode, in the order strace prints them. O_SYNC and O_TMPFILE include
// the bits of O_DSYNC and O_DIRECTORY, so they come first.
std::string join_open_status_flags(uint64_t flags, std::string prefix) {
    return join_flags(flags,
                      {{0100, "O_CREAT"},
                       {0200, "O_EXCL"},
                       {0400, "O_NOCTTY"},
                       {01000, "O_TRUNC"},
                       {02000, "O_APPEND"},
                       {04000, "O_NONBLOCK"},
                       {04010000, "O_SYNC"},
                       {010000, "O_DSYNC"},
                       {020000, "O_ASYNC"},
                       {040000, "O_DIRECT"},
                       {0100000, "O_LARGEFILE"},
                       {0400000, "O_NOFOLLOW"},
                       {01000000, "O_NOATIME"},
                       {02000000, "O_CLOEXEC"},
                       {010000000, "O_PATH"},
                       {020200000, "O_TMPFILE"},
                       {0200000, "O_DIRECTORY"}},
                      std::move(prefix));
}

bool failed(int64_t result) {
    return result < 0 && result >= -4095;
}

// Renders one argument of the kinds that need guest memory or a table lookup.
class ArgumentRenderer {
public:
    ArgumentRenderer(GuestMemory& memory, const SyscallFormatOptions& options)
        : memory_(memory), options_(options) {}

    std::string bytes(uint64_t address, uint64_t length) {
        if (address == 0) {
            return "NULL";
        }
        size_t shown = std::min<uint64_t>(length, options_.string_limit);
        auto data = read_buffer(memory_, address, shown);
        if (!data) {
            return pointer(address);
        }
        return quote_bytes(data->data(), data->size(), length > shown);
    }

    std::string string(uint64_t address, size_t limit = kMaxPathLength) {
        if (address == 0) {
            return "NULL";
        }
        bool complete = false;
        auto text = read_c_string(memory_, address, limit, complete);
        if (!text) {
            return pointer(address);
        }
        return quote_string(*text, !complete);
    }

    // A NULL-terminated array of string pointers (argv); counting stops one past the limit, which is
    // enough for array() to print "...".
    std::string string_array(uint64_t address) {
        uint64_t count = 0;
        for (; address != 0 && count <= options_.array_limit; ++count) {
            auto element = memory_.read_value<uint64_t>(address + count * 8);
            if (!element) {
                return pointer(address);
            }
            if (*element == 0) {
                break;
            }
        }
        return array(address, count, [&](uint64_t i) -> std::optional<std::string> {
            auto element = memory_.read_value<uint64_t>(address + i * 8);
            return element ? std::optional(string(*element, options_.string_limit)) : std::nullopt;
        });
    }

    std::string environment(uint64_t address) {
        if (address == 0) {
            return "NULL";
        }
        size_t count = 0;
        while (true) {
            auto element = memory_.read_value<uint64_t>(address + count * 8);
            if (!element) {
                return pointer(address);
            }
            if (*element == 0) {
                break;
            }
            ++count;
        }
        return fmt::format("{:#x} /* {} var{} */", address, count, count == 1 ? "" : "s");
    }

    std::string sigset(uint64_t address, uint64_t size) {
        if (address == 0) {
            return "NULL";
        }
        auto data = read_buffer(memory_, address, std::min<uint64_t>(size, 8));
        return data ? format_sigset(data->data(), data->size()) : pointer(address);
    }

    std::string sigaction(uint64_t address) {
        if (address == 0) {
            return "NULL";
        }
        struct {
            uint64_t handler;
            uint64_t flags;
            uint64_t restorer;
            uint64_t mask;
        } action;
        if (!memory_.read(address, &action, sizeof action)) {
            return pointer(address);
        }
        std::string handler = action.handler == 0   ? "SIG_DFL"
                              : action.handler == 1 ? "SIG_IGN"
                                                    : hex(action.handler);
        std::string text =
            fmt::format("{{sa_handler={}, sa_mask={}, sa_flags={}", handler,
                        format_sigset(reinterpret_cast<const uint8_t*>(&action.mask), sizeof action.mask),
                        format_sigaction_flags(action.flags));
        if (action.flags & 0x04000000) {
            text += fmt::format(", sa_restorer={}", pointer(action.restorer));
        }
        return text + "}";
    }

    // iovec array; `bytes_available` limits how much of each buffer is shown (the result at exit).
    std::string iovecs(uint64_t address, uint64_t count, std::optional<uint64_t> bytes_available) {
        return array(address, count, [&](uint64_t i) -> std::optional<std::string> {
            auto base = memory_.read_value<uint64_t>(address + i * 16);
            auto length = memory_.read_value<uint64_t>(address + i * 16 + 8);
            if (!base || !length) {
                return std::nullopt;
            }
            uint64_t shown = *length;
            if (bytes_available) {
                shown = std::min(shown, *bytes_available);
                *bytes_available -= shown;
            }
            return fmt::format("{{iov_base={}, iov_len={}}}", bytes(*base, shown), *length);
        });
    }

    std::string pollfds(uint64_t address, uint64_t count) {
        return array(address, count, [&](uint64_t i) -> std::optional<std::string> {
            auto entry = read_pollfd(address, i);
            if (!entry) {
                return std::nullopt;
            }
            return fmt::format("{{fd={}, events={}}}", entry->fd,
                               format_poll_events(static_cast<uint16_t>(entry->events)));
        });
    }

    // The entries the kernel marked ready, as strace appends them after poll's result.
    std::string ready_pollfds(uint64_t address, uint64_t count) {
        std::string text = "[";
        for (uint64_t i = 0; i < std::min<uint64_t>(count, options_.array_limit); ++i) {
            auto entry = read_pollfd(address, i);
            if (!entry) {
                return pointer(address);
            }
            if (entry->revents != 0) {
                text += text.size() == 1 ? "" : ", ";
                text += fmt::format("{{fd={}, revents={}}}", entry->fd,
                                    format_poll_events(static_cast<uint16_t>(entry->revents)));
            }
        }
        return text + "]";
    }

    std::string timespec(uint64_t address, std::string_view fraction) {
        if (address == 0) {
            return "NULL";
        }
        struct {
            int64_t seconds;
            int64_t fraction;
        } value;
        if (!memory_.read(address, &value, sizeof value)) {
            return pointer(address);
        }
        return fmt::format("{{tv_sec={}, {}={}}}", value.seconds, fraction, value.fraction);
    }

    std::string stat(uint64_t address) {
        struct {
            uint64_t device;
            uint64_t inode;
            uint64_t links;
            uint32_t mode;
            uint32_t uid;
            uint32_t gid;
            uint32_t padding;
            uint64_t rdev;
            int64_t size;
        } value;
        if (!memory_.read(address, &value, sizeof value)) {
            return pointer(address);
        }
        return stat_summary(value.mode, value.rdev, value.size, "st_");
    }

    std::string statx(uint64_t address) {
        struct {
            uint32_t mask;
            uint32_t block_size;
            uint64_t attributes;
            uint32_t links;
            uint32_t uid;
            uint32_t gid;
            uint16_t mode;
            uint16_t padding;
            uint64_t inode;
            uint64_t size;
        } value;
        if (!memory_.read(address, &value, sizeof value)) {
            return pointer(address);
        }
        return fmt::format("{{stx_mask={}, stx_mode={}, stx_size={}, ...}}", hex(value.mask),
                           format_file_type(value.mode), value.size);
    }

    std::string utsname(uint64_t address) {
        char fields[2][65];
        if (!memory_.read(address, fields, sizeof fields)) {
            return pointer(address);
        }
        auto field = [](const char* text) { return std::string(text, strnlen(text, 65)); };
        return fmt::format("{{sysname={}, nodename={}, ...}}", quote_string(field(fields[0]), false),
                           quote_string(field(fields[1]), false));
    }

    std::string int_array(uint64_t address, size_t count, bool is_unsigned) {
        std::string text = "[";
        for (size_t i = 0; i < count; ++i) {
            auto value = memory_.read_value<int32_t>(address + i * 4);
            if (!value) {
                return pointer(address);
            }
            text += i == 0 ? "" : ", ";
            text += is_unsigned ? std::to_string(static_cast<uint32_t>(*value)) : std::to_string(*value);
        }
        return text + "]";
    }

    std::string wait_status(uint64_t address) {
        auto status = memory_.read_value<int32_t>(address);
        return status ? format_wait_status(*status) : pointer(address);
    }

    std::string dirents(uint64_t address, int64_t length) {
        size_t entries = 0;
        for (int64_t offset = 0; offset < length;) {
            auto record_length = memory_.read_value<uint16_t>(address + static_cast<uint64_t>(offset) + 16);
            if (!record_length || *record_length == 0) {
                return pointer(address);
            }
            offset += *record_length;
            ++entries;
        }
        return fmt::format("{:#x} /* {} entr{} */", address, entries, entries == 1 ? "y" : "ies");
    }

private:
    struct PollFd {
        int32_t fd;
        int16_t events;
        int16_t revents;
    };

    std::optional<PollFd> read_pollfd(uint64_t address, uint64_t index) {
        PollFd entry;
        if (!memory_.read(address + index * sizeof entry, &entry, sizeof entry)) {
            return std::nullopt;
        }
        return entry;
    }

    // "[e0, e1, ...]": at most array_limit elements, then "...". `element(i)` returns nullopt when the
    // guest memory of element i cannot be read; the whole array then prints as its address, like strace.
    template <typename ElementText> std::string array(uint64_t address, uint64_t count, ElementText element) {
        if (address == 0) {
            return "NULL";
        }
        std::string text = "[";
        for (uint64_t i = 0; i < count; ++i) {
            if (i != 0) {
                text += ", ";
            }
            if (i == options_.array_limit) {
                text += "...";
                break;
            }
            std::optional<std::string> element_text = element(i);
            if (!element_text) {
                return pointer(address);
            }
            text += *element_text;
        }
        return text + "]";
    }

    static std::string stat_summary(uint32_t mode, uint64_t rdev, int64_t size, std::string_view prefix) {
        uint32_t type = mode & 0170000;
        if (type == 020000 || type == 060000) {
            return fmt::format("{{{}mode={}, {}rdev={}, ...}}", prefix, format_file_type(mode), prefix,
                               format_device(rdev));
        }
        return fmt::format("{{{}mode={}, {}size={}, ...}}", prefix, format_file_type(mode), prefix, size);
    }

    GuestMemory& memory_;
    const SyscallFormatOptions& options_;
};

} // namespace

std::string quote_bytes(const uint8_t* data, size_t length, bool truncated) {
    std::string text = "\"";
    for (size_t i = 0; i < length; ++i) {
        uint8_t c = data[i];
        switch (c) {
        case '"':
            text += "\\\"";
            break;
        case '\\':
            text += "\\\\";
            break;
        case '\n':
            text += "\\n";
            break;
        case '\t':
            text += "\\t";
            break;
        case '\r':
            text += "\\r";
            break;
        case '\f':
            text += "\\f";
            break;
        case '\v':
            text += "\\v";
            break;
        default:
            if (c >= ' ' && c <= '~') {
                text += static_cast<char>(c);
            } else if (i + 1 < length && data[i + 1] >= '0' && data[i + 1] <= '7') {
                // A following octal digit would extend a short escape, so use all three digits.
                text += fmt::format("\\{:03o}", c);
            } else {
                text += fmt::format("\\{:o}", c);
            }
        }
    }
    text += '"';
    if (truncated) {
        text += "...";
    }
    return text;
}

std::string format_mode(uint64_t mode) {
    return mode == 0 ? "000" : fmt::format("0{:o}", mode);
}

std::string format_open_flags(uint64_t flags) {
    static constexpr std::string_view kAccessModes[] = {"O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE"};
    return join_open_status_flags(flags & ~3ULL, std::string(kAccessModes[flags & 3]));
}

std::string format_status_flags(uint64_t flags) {
    return join_open_status_flags(flags, {});
}

std::string format_mmap_prot(uint64_t prot) {
    if (prot == 0) {
        return "PROT_NONE";
    }
    return join_flags(prot, {{0x1, "PROT_READ"},
                             {0x2, "PROT_WRITE"},
                             {0x4, "PROT_EXEC"},
                             {0x01000000, "PROT_GROWSDOWN"},
                             {0x02000000, "PROT_GROWSUP"}});
}

std::string format_mmap_flags(uint64_t flags) {
    static constexpr std::string_view kTypes[] = {"0", "MAP_SHARED", "MAP_PRIVATE", "MAP_SHARED_VALIDATE"};
    uint64_t type = flags & 0xf;
    std::string prefix = type < 4 ? std::string(kTypes[type]) : hex(type);
    return join_flags(flags & ~0xfULL,
                      {{0x10, "MAP_FIXED"},
                       {0x20, "MAP_ANONYMOUS"},
                       {0x40, "MAP_32BIT"},
                       {0x100, "MAP_GROWSDOWN"},
                       {0x800, "MAP_DENYWRITE"},
                       {0x1000, "MAP_EXECUTABLE"},
                       {0x2000, "MAP_LOCKED"},
                       {0x4000, "MAP_NORESERVE"},
                       {0x8000, "MAP_POPULATE"},
                       {0x10000, "MAP_NONBLOCK"},
                       {0x20000, "MAP_STACK"},
                       {0x40000, "MAP_HUGETLB"},
                       {0x80000, "MAP_SYNC"},
                       {0x100000, "MAP_FIXED_NOREPLACE"}},
                      prefix);
}

std::string format_clone_flags(uint64_t flags) {
    std::string text = join_flags(flags & ~0xffULL, {{0x100, "CLONE_VM"},
                                                     {0x200, "CLONE_FS"},
                                                     {0x400, "CLONE_FILES"},
                                                     {0x800, "CLONE_SIGHAND"},
                                                     {0x1000, "CLONE_PIDFD"},
                                                     {0x2000, "CLONE_PTRACE"},
                                                     {0x4000, "CLONE_VFORK"},
                                                     {0x8000, "CLONE_PARENT"},
                                                     {0x10000, "CLONE_THREAD"},
                                                     {0x20000, "CLONE_NEWNS"},
                                                     {0x40000, "CLONE_SYSVSEM"},
                                                     {0x80000, "CLONE_SETTLS"},
                                                     {0x100000, "CLONE_PARENT_SETTID"},
                                                     {0x200000, "CLONE_CHILD_CLEARTID"},
                                                     {0x400000, "CLONE_DETACHED"},
                                                     {0x800000, "CLONE_UNTRACED"},
                                                     {0x1000000, "CLONE_CHILD_SETTID"},
                                                     {0x2000000, "CLONE_NEWCGROUP"},
                                                     {0x4000000, "CLONE_NEWUTS"},
                                                     {0x8000000, "CLONE_NEWIPC"},
                                                     {0x10000000, "CLONE_NEWUSER"},
                                                     {0x20000000, "CLONE_NEWPID"},
                                                     {0x40000000, "CLONE_NEWNET"},
                                                     {0x80000000, "CLONE_IO"}});
    // The low byte is the signal sent to the parent when the child exits.
    int exit_signal = static_cast<int>(flags & 0xff);
    if (exit_signal == 0) {
        return text;
    }
    return (flags & ~0xffULL) == 0 ? format_signal(exit_signal) : text + "|" + format_signal(exit_signal);
}

std::string format_at_flags(uint64_t flags) {
    if (flags == 0) {
        return "0";
    }
    return join_flags(flags, {{0x100, "AT_SYMLINK_NOFOLLOW"},
                              {0x200, "AT_REMOVEDIR"},
                              {0x400, "AT_SYMLINK_FOLLOW"},
                              {0x800, "AT_NO_AUTOMOUNT"},
                              {0x1000, "AT_EMPTY_PATH"},
                              {0x2000, "AT_STATX_FORCE_SYNC"},
                              {0x4000, "AT_STATX_DONT_SYNC"}});
}

std::string format_signal(int signal) {
    return signal_text(signal);
}

SyscallFormatter::SyscallFormatter(SyscallFormatOptions options) : options_(options) {}

PendingSyscall SyscallFormatter::format_entry(GuestMemory& memory, int number,
                                              const std::array<uint64_t, 6>& args) const {
    PendingSyscall call;
    call.number = number;
    call.args = args;
    call.row = find_syscall(number);
    size_t count = call.row ? call.row->arg_count : args.size();
    for (size_t i = 0; i < count; ++i) {
        ArgKind kind = call.row ? call.row->args[i].kind : ArgKind::Hex;
        if (kind == ArgKind::OpenMode && i > 0) {
            // The mode only matters when the preceding flags create a file.
            constexpr uint64_t kCreat = 0100, kTmpfile = 020000000;
            uint64_t flags = args[i - 1];
            if (!(flags & kCreat) && (flags & kTmpfile) != kTmpfile) {
                continue;
            }
        }
        PendingSyscall::Argument argument{i, {}, is_output(kind)};
        if (!argument.at_exit) {
            argument.text = render_input(memory, call, i);
        }
        call.arguments.push_back(std::move(argument));
    }
    return call;
}

std::string SyscallFormatter::format_exit(GuestMemory& memory, const PendingSyscall& call,
                                          int64_t result) const {
    std::string text = std::string(call.row ? call.row->name : fmt::format("syscall_{}", call.number)) + "(";
    bool first = true;
    for (const auto& argument : call.arguments) {
        text += first ? "" : ", ";
        first = false;
        text += argument.at_exit ? render_output(memory, call, argument.index, result) : argument.text;
    }
    text += ")" + format_result(call.row, result);
    if (call.row && result > 0 && call.row->args[0].kind == ArgKind::PollFds) {
        ArgumentRenderer render(memory, options_);
        uint64_t count = call.args[static_cast<size_t>(call.row->args[0].size_arg)];
        text += " (" + render.ready_pollfds(call.args[0], count) + ")";
    }
    return text;
}

std::string SyscallFormatter::format_call_start(const PendingSyscall& call) const {
    std::string text = std::string(call.row ? call.row->name : fmt::format("syscall_{}", call.number)) + "(";
    bool first = true;
    for (const auto& argument : call.arguments) {
        text += first ? "" : ", ";
        first = false;
        text += argument.at_exit ? pointer(call.args[argument.index]) : argument.text;
    }
    return text;
}

std::string SyscallFormatter::format_unfinished(const PendingSyscall& call) const {
    if (call.row && call.row->result == ResultKind::NoReturn) {
        return format_call_start(call) + ") = ?";
    }
    return format_call_start(call) + " <unfinished ...>";
}

std::string SyscallFormatter::format_result(const SyscallRow* row, int64_t result) {
    if (row && row->result == ResultKind::NoReturn) {
        return " = ?";
    }
    if (failed(result)) {
        int error = static_cast<int>(-result);
        std::string_view name = errno_name(error);
        if (name.empty()) {
            return fmt::format(" = -1 errno {}", error);
        }
        // Restart codes never reach the guest: the kernel restarts the call or turns them into EINTR.
        bool restart = error >= 512 && error <= 516;
        return fmt::format(" = {} {} ({})", restart ? "?" : "-1", name, errno_message(error));
    }
    if (row && row->result == ResultKind::Address) {
        return " = " + hex(static_cast<uint64_t>(result));
    }
    return fmt::format(" = {}", result);
}

std::string SyscallFormatter::render_input(GuestMemory& memory, const PendingSyscall& call,
                                           size_t index) const {
    uint64_t value = call.args[index];
    const ArgSpec spec = call.row ? call.row->args[index] : ArgSpec{};
    uint64_t size_value = spec.size_arg >= 0 ? call.args[static_cast<size_t>(spec.size_arg)] : 0;
    ArgumentRenderer render(memory, options_);
    switch (spec.kind) {
    case ArgKind::Int:
    case ArgKind::Fd:
        return std::to_string(static_cast<int32_t>(value));
    case ArgKind::Long:
        return std::to_string(static_cast<int64_t>(value));
    case ArgKind::Unsigned:
        return std::to_string(value);
    case ArgKind::Octal:
    case ArgKind::OpenMode:
        return format_mode(value);
    case ArgKind::DirFd:
        return static_cast<int32_t>(value) == kAtFdcwd ? "AT_FDCWD"
                                                       : std::to_string(static_cast<int32_t>(value));
    case ArgKind::Pointer:
        return pointer(value);
    case ArgKind::OpenFlags:
        return format_open_flags(value);
    case ArgKind::StatusFlags:
        return value == 0 ? "0" : format_status_flags(value);
    case ArgKind::AtFlags:
        return format_at_flags(value);
    case ArgKind::AccessMode:
        return value == 0 ? "F_OK" : join_flags(value, {{4, "R_OK"}, {2, "W_OK"}, {1, "X_OK"}});
    case ArgKind::MmapProt:
        return format_mmap_prot(value);
    case ArgKind::MmapFlags:
        return format_mmap_flags(value);
    case ArgKind::CloneFlags:
        return format_clone_flags(value);
    case ArgKind::Signal:
        return format_signal(static_cast<int32_t>(value));
    case ArgKind::ClockId:
        return format_clock(value);
    case ArgKind::FutexOp:
        return format_futex_op(value);
    case ArgKind::FcntlCmd:
        return format_fcntl_cmd(value);
    case ArgKind::SeekWhence: {
        auto name = lookup(
            value, {{0, "SEEK_SET"}, {1, "SEEK_CUR"}, {2, "SEEK_END"}, {3, "SEEK_DATA"}, {4, "SEEK_HOLE"}});
        return name ? std::string(*name) : std::to_string(static_cast<int32_t>(value));
    }
    case ArgKind::SigmaskHow: {
        auto name = lookup(value, {{0, "SIG_BLOCK"}, {1, "SIG_UNBLOCK"}, {2, "SIG_SETMASK"}});
        return name ? std::string(*name) : std::to_string(static_cast<int32_t>(value));
    }
    case ArgKind::IoctlRequest:
        return format_ioctl_request(value);
    case ArgKind::String:
        return render.string(value);
    case ArgKind::StringArray:
        return render.string_array(value);
    case ArgKind::EnvArray:
        return render.environment(value);
    case ArgKind::InBuffer:
        return render.bytes(value, size_value);
    case ArgKind::TimespecIn:
        return render.timespec(value, "tv_nsec");
    case ArgKind::SigsetIn:
        return render.sigset(value, size_value);
    case ArgKind::SigactionIn:
        return render.sigaction(value);
    case ArgKind::IovecIn:
        return render.iovecs(value, size_value, std::nullopt);
    case ArgKind::PollFds:
        return render.pollfds(value, size_value);
    default:
        return hex(value);
    }
}

std::string SyscallFormatter::render_output(GuestMemory& memory, const PendingSyscall& call, size_t index,
                                            int64_t result) const {
    uint64_t address = call.args[index];
    const ArgSpec& spec = call.row->args[index];
    // A failed call wrote nothing: show where it would have written.
    if (address == 0 || failed(result)) {
        return pointer(address);
    }
    uint64_t size_value = spec.size_arg >= 0 ? call.args[static_cast<size_t>(spec.size_arg)] : 0;
    ArgumentRenderer render(memory, options_);
    switch (spec.kind) {
    case ArgKind::OutBuffer:
        return render.bytes(address, spec.size_arg >= 0 ? std::min(static_cast<uint64_t>(result), size_value)
                                                        : static_cast<uint64_t>(result));
    case ArgKind::DirentsOut:
        return render.dirents(address, result);
    case ArgKind::IovecOut:
        return render.iovecs(address, size_value, static_cast<uint64_t>(result));
    case ArgKind::StatOut:
        return render.stat(address);
    case ArgKind::StatxOut:
        return render.statx(address);
    case ArgKind::TimespecOut:
        return render.timespec(address, "tv_nsec");
    case ArgKind::TimevalOut:
        return render.timespec(address, "tv_usec");
    case ArgKind::UtsnameOut:
        return render.utsname(address);
    case ArgKind::IntOut:
    case ArgKind::SocklenInOut:
        return render.int_array(address, 1, false);
    case ArgKind::UnsignedOut:
        return render.int_array(address, 1, true);
    case ArgKind::FdPairOut:
        return render.int_array(address, 2, false);
    case ArgKind::WaitStatusOut:
        return render.wait_status(address);
    case ArgKind::SigsetOut:
        return render.sigset(address, size_value);
    case ArgKind::SigactionOut:
        return render.sigaction(address);
    case ArgKind::IoctlArg:
        // FIONREAD and TIOCGPGRP store an int; other requests are shown by address.
        if (call.args[1] == 0x541B || call.args[1] == 0x540F) {
            return render.int_array(address, 1, false);
        }
        return pointer(address);
    default:
        return pointer(address);
    }
}

} // namespace hermit::tracer
