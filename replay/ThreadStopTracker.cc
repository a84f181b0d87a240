#include "ThreadStopTracker.h"

#include "tracer/ProcFs.h"
#include "tracer/Task.h"

#include <dirent.h>

#include <cstdlib>
#include <string>

namespace hermit::replay {

void ThreadStopTracker::remember(const tracer::Task& task) {
    host_tids_[task.tid()] = task.host_tid();
    host_processes_.insert(task.host_pid());
}

tracer::SyscallDecision ThreadStopTracker::on_entry(tracer::Task& task, const tracer::SyscallStop& stop) {
    remember(task);
    last_syscalls_[task.tid()] = stop.number;
    return tracer::SyscallDecision::pass();
}

void ThreadStopTracker::on_exec(tracer::Task& task) {
    remember(task);
}

pid_t ThreadStopTracker::host_tid(int32_t guest_tid) const {
    if (auto found = host_tids_.find(guest_tid); found != host_tids_.end()) {
        return found->second;
    }
    for (pid_t host_pid : host_processes_) {
        const std::string directory = "/proc/" + std::to_string(host_pid) + "/task";
        DIR* tasks = opendir(directory.c_str());
        if (tasks == nullptr) {
            continue;
        }
        pid_t match = 0;
        while (dirent* entry = readdir(tasks)) {
            const pid_t candidate = static_cast<pid_t>(std::atoi(entry->d_name));
            if (candidate > 0 && tracer::procfs::guest_ids(candidate).tid == guest_tid) {
                match = candidate;
                break;
            }
        }
        closedir(tasks);
        if (match != 0) {
            return match;
        }
    }
    return 0;
}

std::optional<int> ThreadStopTracker::last_syscall(int32_t guest_tid) const {
    if (auto found = last_syscalls_.find(guest_tid); found != last_syscalls_.end()) {
        return found->second;
    }
    return std::nullopt;
}

} // namespace hermit::replay
