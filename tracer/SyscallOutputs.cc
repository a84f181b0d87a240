// syscall_outputs(): which guest memory a completed syscall wrote, derived from the output kinds of its
// row. The recorder captures these ranges and the replayer writes them back instead of running the call.

#include "GuestMemory.h"
#include "SyscallTable.h"

#include <algorithm>

namespace hermit::tracer {

namespace {

// Kernel ABI sizes on x86_64.
constexpr uint64_t kStatSize = 144;
constexpr uint64_t kStatxSize = 256;
constexpr uint64_t kStatfsSize = 120;
constexpr uint64_t kUtsnameSize = 6 * 65;
constexpr uint64_t kSysinfoSize = 112;
constexpr uint64_t kRusageSize = 144;
constexpr uint64_t kSiginfoSize = 128;
constexpr uint64_t kKernelSigactionHeader = 24; // handler, flags, restorer; the mask follows
constexpr uint64_t kEpollEventSize = 12;
constexpr uint64_t kPollfdSize = 8;
constexpr uint64_t kIovecSize = 16;
constexpr uint64_t kSockaddrStorageSize = 128;
constexpr uint64_t kMaxSockoptSize = 4096;
constexpr uint64_t kMaxSigsetSize = 128;
constexpr uint64_t kMaxIovecs = 1024; // UIO_MAXIOV
constexpr uint64_t kTermiosSize = 36; // struct termios of TCGETS (not termios2)

// ioctl requests whose argument is an output, with its size.
uint64_t ioctl_output_size(uint64_t request) {
    switch (request) {
    case 0x5401: // TCGETS
        return kTermiosSize;
    case 0x5413: // TIOCGWINSZ
        return 8;
    case 0x540F:     // TIOCGPGRP
    case 0x541B:     // FIONREAD
    case 0x80045430: // TIOCGPTN
        return 4;
    default:
        return 0;
    }
}

uint64_t fixed_output_size(ArgKind kind) {
    switch (kind) {
    case ArgKind::StatOut:
        return kStatSize;
    case ArgKind::StatxOut:
        return kStatxSize;
    case ArgKind::StatfsOut:
        return kStatfsSize;
    case ArgKind::TimespecOut:
    case ArgKind::TimevalOut:
    case ArgKind::RlimitOut:
        return 16;
    case ArgKind::TimezoneOut:
    case ArgKind::TimeOut:
    case ArgKind::FdPairOut:
        return 8;
    case ArgKind::ItimervalOut:
    case ArgKind::ItimerspecOut:
    case ArgKind::TmsOut:
        return 32;
    case ArgKind::IntOut:
    case ArgKind::UnsignedOut:
    case ArgKind::WaitStatusOut:
    case ArgKind::SocklenInOut:
        return 4;
    case ArgKind::UtsnameOut:
        return kUtsnameSize;
    case ArgKind::SysinfoOut:
        return kSysinfoSize;
    case ArgKind::RusageOut:
        return kRusageSize;
    case ArgKind::SiginfoOut:
        return kSiginfoSize;
    default:
        return 0;
    }
}

class OutputCollector {
public:
    OutputCollector(const std::array<uint64_t, 6>& args, int64_t result, GuestMemory* memory)
        : args_(args), result_(result), memory_(memory) {}

    void collect(const ArgSpec& spec, size_t index) {
        uint64_t address = args_[index];
        if (address == 0) {
            return;
        }
        uint64_t count = result_ > 0 ? static_cast<uint64_t>(result_) : 0;
        uint64_t size_value = spec.size_arg >= 0 ? args_[static_cast<size_t>(spec.size_arg)] : 0;
        switch (spec.kind) {
        case ArgKind::OutBuffer:
        case ArgKind::DirentsOut:
            add(address, spec.size_arg >= 0 ? std::min(count, size_value) : count);
            break;
        case ArgKind::CpuSetOut:
            add(address, count);
            break;
        case ArgKind::GroupsOut:
            // getgroups(0, list) only reports the count.
            add(address, args_[0] == 0 ? 0 : count * 4);
            break;
        case ArgKind::EpollEventsOut:
            add(address, count * kEpollEventSize);
            break;
        case ArgKind::PollFds:
            add(address, size_value * kPollfdSize);
            break;
        case ArgKind::FdSetInOut:
            add(address, (std::min<uint64_t>(size_value, 1024 * 1024) + 63) / 64 * 8);
            break;
        case ArgKind::SigsetOut:
            add(address, std::min(size_value, kMaxSigsetSize));
            break;
        case ArgKind::SigactionOut:
            add(address, kKernelSigactionHeader + std::min(size_value, kMaxSigsetSize));
            break;
        case ArgKind::IoctlArg:
            add(address, ioctl_output_size(args_[1]));
            break;
        case ArgKind::IovecOut:
            scatter(address, std::min(size_value, kMaxIovecs), count);
            break;
        case ArgKind::MsghdrOut:
            message_header(address, count);
            break;
        case ArgKind::SockaddrOut:
            add(address,
                std::min(written_length(args_[static_cast<size_t>(spec.size_arg)]), kSockaddrStorageSize));
            break;
        case ArgKind::SockoptOut:
            add(address,
                std::min(written_length(args_[static_cast<size_t>(spec.size_arg)]), kMaxSockoptSize));
            break;
        default:
            add(address, fixed_output_size(spec.kind));
            break;
        }
    }

    std::vector<OutputRange> take() { return std::move(ranges_); }

private:
    void add(uint64_t address, uint64_t length) {
        if (address != 0 && length != 0) {
            ranges_.push_back({address, length});
        }
    }

    // The socklen_t the kernel stored: how long the written object is. 0 without memory.
    uint64_t written_length(uint64_t length_address) {
        if (!memory_ || length_address == 0) {
            return 0;
        }
        return memory_->read_value<uint32_t>(length_address).value_or(0);
    }

    // `bytes` bytes of data were written over the buffers of an iovec array, in order.
    void scatter(uint64_t iovecs, uint64_t iovec_count, uint64_t bytes) {
        if (!memory_) {
            return;
        }
        for (uint64_t i = 0; i < iovec_count && bytes > 0; ++i) {
            auto base = memory_->read_value<uint64_t>(iovecs + i * kIovecSize);
            auto length = memory_->read_value<uint64_t>(iovecs + i * kIovecSize + 8);
            if (!base || !length) {
                return;
            }
            uint64_t written = std::min(*length, bytes);
            add(*base, written);
            bytes -= written;
        }
    }

    // recvmsg writes the data, the sender's address, control messages and the header's length and flag
    // fields. Best effort: truncated control data (MSG_CTRUNC) is captured at its reported length.
    void message_header(uint64_t header, uint64_t bytes) {
        if (!memory_) {
            return;
        }
        struct {
            uint64_t name;
            uint32_t name_length;
            uint32_t padding;
            uint64_t iov;
            uint64_t iov_count;
            uint64_t control;
            uint64_t control_length;
            int32_t flags;
            uint32_t padding2;
        } message;
        static_assert(sizeof message == 56);
        if (!memory_->read(header, &message, sizeof message)) {
            return;
        }
        add(header, sizeof message);
        add(message.name, std::min<uint64_t>(message.name_length, kSockaddrStorageSize));
        scatter(message.iov, std::min(message.iov_count, kMaxIovecs), bytes);
        add(message.control, std::min<uint64_t>(message.control_length, 64 * 1024));
    }

    const std::array<uint64_t, 6>& args_;
    int64_t result_;
    GuestMemory* memory_;
    std::vector<OutputRange> ranges_;
};

bool failed(int64_t result) {
    return result < 0 && result >= -4095;
}

std::vector<OutputRange> collect_outputs(const SyscallRow& row, const std::array<uint64_t, 6>& args,
                                         int64_t result, GuestMemory* memory) {
    if (failed(result)) {
        return {};
    }
    OutputCollector collector(args, result, memory);
    for (size_t i = 0; i < row.arg_count; ++i) {
        const ArgSpec& spec = row.args[i];
        if (is_output(spec.kind) || spec.kind == ArgKind::PollFds) {
            collector.collect(spec, i);
        }
    }
    return collector.take();
}

} // namespace

std::vector<OutputRange> syscall_outputs(const SyscallRow& row, const std::array<uint64_t, 6>& args,
                                         int64_t result) {
    return collect_outputs(row, args, result, nullptr);
}

std::vector<OutputRange> syscall_outputs(const SyscallRow& row, const std::array<uint64_t, 6>& args,
                                         int64_t result, GuestMemory& memory) {
    return collect_outputs(row, args, result, &memory);
}

} // namespace hermit::tracer
