#include "EventDescription.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <type_traits>

namespace hermit {

namespace {

// Guest output can hold anything; keep descriptions on one line and short.
std::string quoted_preview(const std::vector<uint8_t>& data) {
    constexpr size_t kPreviewBytes = 40;
    std::string text = "\"";
    for (size_t i = 0; i < data.size() && i < kPreviewBytes; ++i) {
        const uint8_t byte = data[i];
        if (byte == '\n') {
            text += "\\n";
        } else if (byte == '"' || byte == '\\') {
            text += '\\';
            text += static_cast<char>(byte);
        } else if (byte >= 0x20 && byte < 0x7f) {
            text += static_cast<char>(byte);
        } else {
            text += fmt::format("\\x{:02x}", byte);
        }
    }
    text += data.size() > kPreviewBytes ? "\"..." : "\"";
    return text;
}

// The reason as a verb phrase about the thread that gave up the token.
const char* reason_text(ScheduleEvent::Reason reason) {
    switch (reason) {
    case ScheduleEvent::Reason::Yield:
        return "yielded";
    case ScheduleEvent::Reason::Blocked:
        return "blocked";
    case ScheduleEvent::Reason::Exited:
        return "exited";
    case ScheduleEvent::Reason::Preempted:
        return "was preempted";
    case ScheduleEvent::Reason::Started:
        return "started";
    }
    return "?";
}

std::string describe_payload(const ScheduleEvent& schedule, const SyscallNameLookup&) {
    if (schedule.reason == ScheduleEvent::Reason::Started) {
        return "scheduled first";
    }
    return fmt::format("scheduled (thread {} {})", schedule.previous_tid, reason_text(schedule.reason));
}

std::string describe_payload(const SyscallEvent& syscall, const SyscallNameLookup& names) {
    std::vector<std::string> args;
    for (uint64_t arg : syscall.args) {
        args.push_back(fmt::format("{:#x}", arg));
    }
    std::string text =
        fmt::format("syscall {} {}({}) = {}", syscall.number, syscall_name(syscall.number, names),
                    fmt::join(args, ", "), syscall.result);
    if (syscall.buffered) {
        text += " [buffered]";
    }
    if (syscall.emulated) {
        text += " [emulated]";
    }
    if (!syscall.memory_writes.empty()) {
        size_t bytes = 0;
        for (const auto& write : syscall.memory_writes) {
            bytes += write.data.size();
        }
        text += fmt::format(" [wrote {} bytes of guest memory]", bytes);
    }
    return text;
}

std::string describe_payload(const SignalEvent& signal, const SyscallNameLookup&) {
    return fmt::format("signal {} (code {}, from {}pid {}){}", signal.number, signal.code,
                       signal.outside ? "outside the guest, " : "", signal.sender_pid,
                       signal.fatal ? ", fatal" : "");
}

std::string describe_payload(const ThreadStartEvent& start, const SyscallNameLookup&) {
    return fmt::format("started by thread {}{}", start.parent_tid, start.new_process ? " (new process)" : "");
}

std::string describe_payload(const ThreadExitEvent& exit, const SyscallNameLookup&) {
    return fmt::format("exited with status {}{}", exit.status,
                       exit.process_exit ? " (last thread of its process)" : "");
}

std::string describe_payload(const ExecEvent& exec, const SyscallNameLookup&) {
    return fmt::format("exec {} [{}]", exec.path, fmt::join(exec.argv, " "));
}

std::string describe_payload(const RdtscEvent& rdtsc, const SyscallNameLookup&) {
    return fmt::format("{} = {}", rdtsc.with_processor_id ? "rdtscp" : "rdtsc", rdtsc.value);
}

std::string describe_payload(const CpuidEvent& cpuid, const SyscallNameLookup&) {
    return fmt::format("cpuid leaf {:#x} subleaf {:#x} = eax {:#x} ebx {:#x} ecx {:#x} edx {:#x}", cpuid.leaf,
                       cpuid.subleaf, cpuid.eax, cpuid.ebx, cpuid.ecx, cpuid.edx);
}

std::string describe_payload(const StdioEvent& stdio, const SyscallNameLookup&) {
    const char* stream = stdio.fd == 1 ? "stdout" : stdio.fd == 2 ? "stderr" : "fd";
    return fmt::format("wrote {} bytes to {} {}", stdio.data.size(), stream, quoted_preview(stdio.data));
}

} // namespace

std::string default_syscall_name(int number) {
    return fmt::format("syscall_{}", number);
}

std::string syscall_name(int number, const SyscallNameLookup& names) {
    if (names) {
        std::string name = names(number);
        if (!name.empty()) {
            return name;
        }
    }
    return default_syscall_name(number);
}

std::string describe_event(const Event& event, const SyscallNameLookup& names) {
    return fmt::format("thread {}: {}", event.tid,
                       std::visit([&names](const auto& payload) { return describe_payload(payload, names); },
                                  event.payload));
}

} // namespace hermit
