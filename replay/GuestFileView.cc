#include "GuestFileView.h"

namespace hermit::replay {

gdbserver::HostIoResult GuestFileView::open(const std::string& path, int flags, uint32_t mode) {
    const pid_t process = host_pid_();
    if (process == 0 || path.empty() || path.front() != '/') {
        return files_.open(path, flags, mode);
    }
    return files_.open("/proc/" + std::to_string(process) + "/root" + path, flags, mode);
}

} // namespace hermit::replay
