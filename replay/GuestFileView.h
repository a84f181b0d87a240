#pragma once
// GuestFileView: the files gdb reads through the server (vFile), as the debugged process sees them: paths
// are taken from its root (/proc/<host pid>/root), so its mount namespace's files and its own /proc (where
// it is pid 1) are what gdb gets, read-only, as LocalFileHostIo reads them.

#include "gdbserver/LocalFileHostIo.h"

#include <sys/types.h>

#include <functional>
#include <string>

namespace hermit::replay {

class GuestFileView : public gdbserver::HostIo {
public:
    // `host_pid` names the debugged process while it is stopped (0: none yet, the host's own view).
    explicit GuestFileView(std::function<pid_t()> host_pid) : host_pid_(std::move(host_pid)) {}

    gdbserver::HostIoResult open(const std::string& path, int flags, uint32_t mode) override;
    gdbserver::HostIoResult pread(int fd, size_t count, uint64_t offset,
                                  std::vector<uint8_t>& data) override {
        return files_.pread(fd, count, offset, data);
    }
    gdbserver::HostIoResult close(int fd) override { return files_.close(fd); }
    gdbserver::HostIoResult fstat(int fd, struct ::stat& stat_buffer) override {
        return files_.fstat(fd, stat_buffer);
    }
    gdbserver::HostIoResult setfs(int64_t) override { return {0, 0}; } // one process is debugged

private:
    std::function<pid_t()> host_pid_;
    gdbserver::LocalFileHostIo files_;
};

} // namespace hermit::replay
