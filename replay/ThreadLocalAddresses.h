#pragma once
// Thread-local variables for gdb (qGetTLSAddr), computed as glibc's libthread_db does it for a native gdb.
// On x86-64 a module loaded at start-up has its TLS block at the thread pointer (fs_base) minus the
// module's l_tls_offset, a field of its struct link_map whose place glibc publishes for debuggers in the
// descriptor _thread_db_link_map_l_tls_offset ({size in bits, count, offset}, a symbol of libc).

#include "tracer/Task.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace hermit::replay {

class ThreadLocalAddresses {
public:
    // The address of the variable at `offset` in the TLS block of the module whose link_map is at
    // `link_map`, in `task`; nullopt when libc's descriptor cannot be found or the module's block is not
    // at a fixed place (a dlopen'ed module's, allocated at first use).
    std::optional<uint64_t> address(tracer::Task& task, uint64_t offset, uint64_t link_map);

private:
    // Where l_tls_offset is in a link_map, from the libc that process `host_pid` maps.
    std::optional<uint32_t> field_offset(pid_t host_pid);

    std::map<std::string, std::optional<uint32_t>> field_offsets_; // by libc's path
};

} // namespace hermit::replay
