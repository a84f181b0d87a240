#include "PerfettoExport.h"
#include "JsonText.h"

#include "Error.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <optional>
#include <set>
#include <type_traits>

namespace hermit {

namespace {

using nlohmann::json;

double microseconds(uint64_t logical_ns) {
    return static_cast<double>(logical_ns) / 1000.0;
}

json instant(const Event& event, std::string name, const char* category, json args) {
    return json{{"ph", "i"},
                {"s", "t"},
                {"name", std::move(name)},
                {"cat", category},
                {"ts", microseconds(event.time)},
                {"pid", event.pid},
                {"tid", event.tid},
                {"args", std::move(args)}};
}

std::string printable(const std::vector<uint8_t>& data) {
    constexpr size_t kMaxBytes = 256;
    std::string text;
    for (size_t i = 0; i < data.size() && i < kMaxBytes; ++i) {
        const uint8_t byte = data[i];
        text += (byte >= 0x20 && byte < 0x7f) || byte == '\n' || byte == '\t' ? static_cast<char>(byte) : '.';
    }
    return text;
}

// Instant for every event kind except Schedule, which becomes slices instead.
std::optional<json> instant_for(const Event& event, const SyscallNameLookup& names) {
    return std::visit(
        [&](const auto& payload) -> std::optional<json> {
            using Kind = std::decay_t<decltype(payload)>;
            if constexpr (std::is_same_v<Kind, ScheduleEvent>) {
                return std::nullopt;
            } else if constexpr (std::is_same_v<Kind, SyscallEvent>) {
                json args = json::array();
                for (uint64_t arg : payload.args) {
                    args.push_back(fmt::format("{:#x}", arg));
                }
                size_t written = 0;
                for (const auto& write : payload.memory_writes) {
                    written += write.data.size();
                }
                return instant(event, syscall_name(payload.number, names), "syscall",
                               {{"number", payload.number},
                                {"args", std::move(args)},
                                {"result", payload.result},
                                {"emulated", payload.emulated},
                                {"buffered", payload.buffered},
                                {"paths", payload.paths},
                                {"memory_written_bytes", written}});
            } else if constexpr (std::is_same_v<Kind, SignalEvent>) {
                return instant(event, fmt::format("signal {}", payload.number), "signal",
                               {{"number", payload.number},
                                {"code", payload.code},
                                {"sender_pid", payload.sender_pid},
                                {"fatal", payload.fatal}});
            } else if constexpr (std::is_same_v<Kind, ThreadStartEvent>) {
                return instant(event, "thread start", "thread",
                               {{"parent_tid", payload.parent_tid}, {"new_process", payload.new_process}});
            } else if constexpr (std::is_same_v<Kind, ThreadExitEvent>) {
                return instant(event, "thread exit", "thread",
                               {{"status", payload.status}, {"process_exit", payload.process_exit}});
            } else if constexpr (std::is_same_v<Kind, ExecEvent>) {
                return instant(event, "exec", "exec", {{"path", payload.path}, {"argv", payload.argv}});
            } else if constexpr (std::is_same_v<Kind, RdtscEvent>) {
                return instant(event, payload.with_processor_id ? "rdtscp" : "rdtsc", "nondeterminism",
                               {{"value", payload.value}});
            } else if constexpr (std::is_same_v<Kind, CpuidEvent>) {
                return instant(event, "cpuid", "nondeterminism",
                               {{"leaf", payload.leaf},
                                {"subleaf", payload.subleaf},
                                {"eax", payload.eax},
                                {"ebx", payload.ebx},
                                {"ecx", payload.ecx},
                                {"edx", payload.edx}});
            } else {
                static_assert(std::is_same_v<Kind, StdioEvent>);
                return instant(
                    event, payload.fd == 2 ? "stderr" : "stdout", "output",
                    {{"fd", payload.fd}, {"bytes", payload.data.size()}, {"text", printable(payload.data)}});
            }
        },
        event.payload);
}

} // namespace

json perfetto_trace(const RecordingMeta& meta, const std::vector<Event>& events,
                    const SyscallNameLookup& names) {
    json trace_events = json::array();
    std::map<int32_t, std::set<int32_t>> threads_by_process;
    for (const auto& event : events) {
        threads_by_process[event.pid].insert(event.tid);
    }
    const std::string program = meta.argv.empty()
                                    ? std::string("guest")
                                    : std::filesystem::path(meta.argv.front()).filename().string();
    for (const auto& [pid, tids] : threads_by_process) {
        trace_events.push_back({{"ph", "M"},
                                {"name", "process_name"},
                                {"pid", pid},
                                {"tid", 0},
                                {"args", {{"name", fmt::format("{} (pid {})", program, pid)}}}});
        for (int32_t tid : tids) {
            trace_events.push_back({{"ph", "M"},
                                    {"name", "thread_name"},
                                    {"pid", pid},
                                    {"tid", tid},
                                    {"args", {{"name", fmt::format("thread {}", tid)}}}});
        }
    }

    const Event* running = nullptr; // the Schedule event that opened the current slice
    auto close_slice = [&](uint64_t end_time) {
        if (running == nullptr) {
            return;
        }
        const auto& schedule = std::get<ScheduleEvent>(running->payload);
        trace_events.push_back(
            {{"ph", "X"},
             {"name", "running"},
             {"cat", "schedule"},
             {"ts", microseconds(running->time)},
             {"dur", microseconds(end_time - std::min(end_time, running->time))},
             {"pid", running->pid},
             {"tid", running->tid},
             {"args",
              {{"previous_tid", schedule.previous_tid}, {"reason", schedule_reason_name(schedule.reason)}}}});
    };
    for (const auto& event : events) {
        if (std::holds_alternative<ScheduleEvent>(event.payload)) {
            close_slice(event.time);
            running = &event;
        } else if (auto instant_event = instant_for(event, names)) {
            trace_events.push_back(std::move(*instant_event));
        }
    }
    if (!events.empty()) {
        close_slice(std::max(events.back().time, meta.guest_duration_ns));
    }

    return json{{"traceEvents", std::move(trace_events)},
                {"displayTimeUnit", "ns"},
                {"otherData",
                 {{"recording", meta.id},
                  {"command", meta.argv},
                  {"seed", meta.config.seed},
                  {"exit_status", meta.exit_status},
                  {"clock", "hermit logical time"}}}};
}

void write_perfetto_trace(const nlohmann::json& trace, const std::filesystem::path& output) {
    const std::string text = json_text(trace);
    if (output == "-") {
        std::cout << text << '\n';
        std::cout.flush();
        if (!std::cout) {
            throw Error(ErrorCode::ExportFailed, "-", "cannot write to standard output");
        }
        return;
    }
    std::ofstream out(output, std::ios::binary | std::ios::trunc);
    if (!out) {
        throw Error(ErrorCode::ExportFailed, output.string(), std::strerror(errno));
    }
    out << text << '\n';
    out.close();
    if (!out) {
        throw Error(ErrorCode::ExportFailed, output.string(), std::strerror(errno));
    }
}

} // namespace hermit
