#pragma once
// Thread-local variables for gdb (qGetTLSAddr), computed as glibc's libthread_db does it for a native gdb,
// from the field places glibc publishes for debuggers as descriptors ({size in bits, count, offset},
// symbols of libc named _thread_db_*). On x86-64 a module loaded at start-up has its TLS block at the
// thread pointer (fs_base) minus the module's l_tls_offset (a field of its struct link_map); a module
// loaded with dlopen has its block where the thread's dtv (dynamic thread vector, reached from the
// thread's struct pthread at the thread pointer) says, at the entry of the module's l_tls_modid,
// allocated at the thread's first use of the module's variables.

#include "tracer/Task.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace hermit::replay {

class ThreadLocalAddresses {
public:
    // Where the fields are, in bytes, in one libc's structures.
    struct Layout {
        uint32_t tls_offset;        // struct link_map: l_tls_offset
        uint32_t tls_modid;         // struct link_map: l_tls_modid
        uint32_t dtv_pointer;       // struct pthread: the dtv
        uint32_t dtv_entry_size;    // one dtv entry
        uint32_t dtv_entry_pointer; // a dtv entry: the block's address
    };

    // The address of the variable at `offset` in the TLS block of the module whose link_map is at
    // `link_map`, in `task`; nullopt when libc's descriptors cannot be found or the thread has no block for
    // the module yet.
    std::optional<uint64_t> address(tracer::Task& task, uint64_t offset, uint64_t link_map);

private:
    // The layout of the libc that process `host_pid` maps.
    std::optional<Layout> layout(pid_t host_pid);

    std::map<std::string, std::optional<Layout>> layouts_; // by libc's path
};

} // namespace hermit::replay
