#include "FileTimes.h"

#include <algorithm>

namespace hermit::tracer::virt {

FileTimeSet FileTimes::shown(uint64_t device, uint64_t inode, const FileTimeSet& host, bool stored) {
    const int64_t now = clock_.file_time_ns();
    auto found = changed_.find({device, inode});
    if (found != changed_.end() && !stored) {
        return found->second.shown;
    }
    if (found == changed_.end()) {
        if (stored && std::max(host.modify_ns, host.change_ns) < run_start_ns_ &&
            !not_inputs_.contains({device, inode})) {
            FileTimeSet input = host;
            input.access_ns = host.modify_ns;
            return input;
        }
        const int64_t birth =
            stored && host.birth_ns != 0 && host.birth_ns < run_start_ns_ ? host.birth_ns : now;
        found = changed_
                    .emplace(std::pair{device, inode},
                             Changed{host.modify_ns, host.change_ns, {now, now, now, birth}})
                    .first;
        return found->second.shown;
    }
    Changed& changed = found->second;
    if (changed.host_modify_ns != host.modify_ns) {
        // Written again (or its times set by someone else): a new modification.
        changed = Changed{host.modify_ns, host.change_ns, {now, now, now, changed.shown.birth_ns}};
    } else if (changed.host_change_ns != host.change_ns) {
        // Renamed, linked, its mode or owner changed: only the change time moves.
        changed.host_change_ns = host.change_ns;
        changed.shown.change_ns = now;
    }
    return changed.shown;
}

void FileTimes::on_times_set(uint64_t device, uint64_t inode, int64_t access_ns, int64_t modify_ns) {
    const int64_t now = clock_.file_time_ns();
    const auto found = changed_.find({device, inode});
    const int64_t birth = found != changed_.end() ? found->second.shown.birth_ns : now;
    // The change time the call gives the file is not known yet: the next look takes it as a change.
    changed_[{device, inode}] = Changed{modify_ns, 0, {access_ns, modify_ns, now, birth}};
}

} // namespace hermit::tracer::virt
