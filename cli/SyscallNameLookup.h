#pragma once
// The syscall-name lookup the commands pass to formats/ (which knows no syscall table of its own).

#include "formats/EventDescription.h"
#include "tracer/SyscallBuffer.h"
#include "tracer/SyscallTable.h"

#include <string>

namespace hermit::cli {

inline SyscallNameLookup tracer_syscall_names() {
    return [](int number) {
        if (number == tracer::syscall_buffer::kRegisterSyscall) {
            return std::string("hermit_register_buffer");
        }
        const auto* row = tracer::find_syscall(number);
        return row ? std::string(row->name) : std::string();
    };
}

} // namespace hermit::cli
