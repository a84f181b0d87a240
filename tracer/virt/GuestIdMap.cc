#include "GuestIdMap.h"

#include "tracer/ProcFs.h"
#include "tracer/Task.h"

#include <fstream>
#include <string>

namespace hermit::tracer::virt {
namespace {

std::vector<uint32_t> numbers_of(const std::string& path) {
    std::ifstream file(path);
    std::vector<uint32_t> numbers;
    for (uint32_t number = 0; file >> number;) {
        numbers.push_back(number);
    }
    return numbers;
}

// The lines "inside outside count" of /proc/<tid>/uid_map or gid_map (outside as hermit sees it).
template <typename Range> std::vector<Range> ranges_of(const std::string& path) {
    const std::vector<uint32_t> numbers = numbers_of(path);
    std::vector<Range> ranges;
    for (size_t index = 0; index + 2 < numbers.size(); index += 3) {
        ranges.push_back({numbers[index], numbers[index + 1], numbers[index + 2]});
    }
    return ranges;
}

uint32_t overflow_id(const char* path) {
    const std::vector<uint32_t> numbers = numbers_of(path);
    return numbers.empty() ? 65534 : numbers.front();
}

template <typename Range>
uint32_t translate(const std::vector<Range>& ranges, uint32_t host, uint32_t overflow) {
    for (const Range& range : ranges) {
        if (host >= range.outside && host - range.outside < range.count) {
            return range.inside + (host - range.outside);
        }
    }
    return overflow;
}

} // namespace

const GuestIdMap::Namespace* GuestIdMap::namespace_of(Task& task, bool& unreadable) {
    const std::string directory = "/proc/" + std::to_string(task.host_tid());
    const std::optional<ino_t> inode = task.user_namespace();
    if (!own_namespace_) {
        own_namespace_ = procfs::own_user_namespace();
    }
    unreadable = !inode || !own_namespace_;
    if (unreadable || *inode == *own_namespace_) {
        return nullptr;
    }
    auto known = namespaces_.find(*inode);
    if (known == namespaces_.end()) {
        known = namespaces_
                    .emplace(*inode, Namespace{ranges_of<Range>(directory + "/uid_map"),
                                               ranges_of<Range>(directory + "/gid_map")})
                    .first;
    }
    return &known->second;
}

std::optional<GuestIdMap::Ids> GuestIdMap::guest_view(Task& task, Ids host) {
    bool unreadable = false;
    const Namespace* space = namespace_of(task, unreadable);
    if (unreadable) {
        return std::nullopt;
    }
    if (space == nullptr) {
        return host;
    }
    static const uint32_t overflow_uid = overflow_id("/proc/sys/kernel/overflowuid");
    static const uint32_t overflow_gid = overflow_id("/proc/sys/kernel/overflowgid");
    return Ids{translate(space->uids, host.uid, overflow_uid),
               translate(space->gids, host.gid, overflow_gid)};
}

} // namespace hermit::tracer::virt
