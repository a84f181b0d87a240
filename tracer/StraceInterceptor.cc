#include "StraceInterceptor.h"

#include "Task.h"
#include "formats/Error.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <variant>

namespace hermit::tracer {

StraceInterceptor::StraceInterceptor(FILE* output, SyscallFormatOptions options)
    : formatter_(options), output_(output), owns_output_(false) {}

StraceInterceptor::StraceInterceptor(const std::string& path, SyscallFormatOptions options)
    : formatter_(options), output_(std::fopen(path.c_str(), "we")), owns_output_(true) {
    if (!output_) {
        throw Error(ErrorCode::StraceOutputUnavailable, path, std::strerror(errno));
    }
}

StraceInterceptor::~StraceInterceptor() {
    for (const auto& [tid, call] : pending_) {
        print(tid, formatter_.format_unfinished(call));
    }
    if (owns_output_) {
        std::fclose(output_);
    } else {
        std::fflush(output_);
    }
}

SyscallDecision StraceInterceptor::on_entry(Task& task, const SyscallStop& stop) {
    threads_seen_.insert(task.tid());
    // A call whose exit never came (the Session skipped its exit stop) is shown as unfinished.
    if (auto earlier = pending_.find(task.tid()); earlier != pending_.end()) {
        print(task.tid(), formatter_.format_unfinished(earlier->second));
        pending_.erase(earlier);
    }
    PendingSyscall call = formatter_.format_entry(task, stop.number, stop.args);
    // exit and exit_group have no exit stop: print them now, as strace does ("exit_group(0) = ?").
    if (call.row && call.row->result == ResultKind::NoReturn) {
        print(task.tid(), formatter_.format_unfinished(call));
        return SyscallDecision::run();
    }
    pending_[task.tid()] = std::move(call);
    return SyscallDecision::stop_at_exit();
}

void StraceInterceptor::on_exit(Task& task, const SyscallStop& /*stop*/, int64_t& result) {
    auto found = pending_.find(task.tid());
    if (found == pending_.end()) {
        return;
    }
    print(task.tid(), formatter_.format_exit(task, found->second, result));
    pending_.erase(found);
}

void StraceInterceptor::on_event(const Event& event) {
    if (const auto* signal = std::get_if<SignalEvent>(&event.payload)) {
        std::string name = format_signal(signal->number);
        print(event.tid, fmt::format("--- {} {{si_signo={}, si_code={}, si_pid={}}} ---", name, name,
                                     signal->code, signal->sender_pid));
        if (signal->fatal) {
            fatal_signals_[event.tid] = signal->number;
        }
    } else if (const auto* exit = std::get_if<ThreadExitEvent>(&event.payload)) {
        auto fatal = fatal_signals_.find(event.tid);
        if (fatal != fatal_signals_.end()) {
            print(event.tid, fmt::format("+++ killed by {} +++", format_signal(fatal->second)));
            fatal_signals_.erase(fatal);
        } else {
            print(event.tid, fmt::format("+++ exited with {} +++", exit->status));
        }
    }
}

void StraceInterceptor::print(int32_t tid, const std::string& line) {
    if (threads_seen_.size() > 1) {
        std::fprintf(output_, "[pid %d] %s\n", tid, line.c_str());
    } else {
        std::fprintf(output_, "%s\n", line.c_str());
    }
}

} // namespace hermit::tracer
