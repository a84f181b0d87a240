#pragma once
// LocalFileHostIo: HostIo over the host's own files, read-only. A replayed guest's executable and
// libraries are the host's files at the recorded paths, so gdb can read them through the server without
// a local copy. Opening for writing is refused with EACCES: gdb has no business changing them.

#include "Target.h"

namespace hermit::gdbserver {

class LocalFileHostIo : public HostIo {
public:
    LocalFileHostIo() = default;
    LocalFileHostIo(const LocalFileHostIo&) = delete;
    LocalFileHostIo& operator=(const LocalFileHostIo&) = delete;
    ~LocalFileHostIo() override;

    HostIoResult open(const std::string& path, int flags, uint32_t mode) override;
    HostIoResult pread(int fd, size_t count, uint64_t offset, std::vector<uint8_t>& data) override;
    HostIoResult close(int fd) override;
    HostIoResult fstat(int fd, struct ::stat& stat_buffer) override;
    HostIoResult setfs(int64_t pid) override;

private:
    bool owns(int fd) const;

    std::vector<int> open_fds_;
};

} // namespace hermit::gdbserver
