#include "StraceInterceptor.h"

#include "Task.h"
#include "formats/Error.h"

#include <cerrno>
#include <cstring>

namespace hermit::tracer {

StraceInterceptor::StraceInterceptor(FILE* output, SyscallFormatOptions options)
    : formatter_(options), output_(output), owns_output_(false) {}

StraceInterceptor::StraceInterceptor(const std::string& path, SyscallFormatOptions options)
    : formatter_(options), output_(std::fopen(path.c_str(), "w")), owns_output_(true) {
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

void StraceInterceptor::print(int32_t tid, const std::string& line) {
    if (threads_seen_.size() > 1) {
        std::fprintf(output_, "[pid %d] %s\n", tid, line.c_str());
    } else {
        std::fprintf(output_, "%s\n", line.c_str());
    }
}

} // namespace hermit::tracer
