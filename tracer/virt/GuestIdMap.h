#pragma once
// GuestIdMap: the owner and group ids of files as a guest sees them. The kernel shows ids through the
// caller's user namespace: a guest in its own namespace sees hermit's uid as 0 and ids its namespace does
// not map as the overflow id (65534). A stat run by hermit returns host ids, translated here.

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace hermit::tracer {
class Task;
}

namespace hermit::tracer::virt {

class GuestIdMap {
public:
    struct Ids {
        uid_t uid;
        gid_t gid;
    };

    // `host` ids as the guest thread sees them; nullopt when its user namespace cannot be read.
    std::optional<Ids> guest_view(Task& task, Ids host);

private:
    struct Range {
        uint32_t inside, outside, count;
    };
    struct Namespace {
        std::vector<Range> uids, gids;
    };

    // The namespace of the thread, read once per namespace (keyed by its inode); null when it is hermit's.
    const Namespace* namespace_of(Task& task, bool& unreadable);

    std::optional<ino_t> own_namespace_;
    std::map<ino_t, Namespace> namespaces_;
};

} // namespace hermit::tracer::virt
