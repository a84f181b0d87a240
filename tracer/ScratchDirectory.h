#pragma once
// ScratchDirectory: a directory of hermit's own, `prefix`-XXXXXX in $TMPDIR/hermit-<uid> ($TMPDIR: else
// /tmp), made on first use and removed with the object. A hermit killed outright (SIGKILL runs no
// destructor) would leave it behind, so it stays locked (flock) while it exists, and making one removes
// those of the same prefix that nobody locks: their hermit is gone, since the kernel drops a lock with its
// last descriptor. Where another user owns $TMPDIR/hermit-<uid>, it is hermit-`prefix`-XXXXXX in $TMPDIR,
// and nothing is swept.

#include "formats/FileIo.h"

#include <filesystem>
#include <string>

namespace hermit::tracer {

class ScratchDirectory {
public:
    // With `permissions` (mkdtemp's owner-only by default).
    explicit ScratchDirectory(std::string prefix,
                              std::filesystem::perms permissions = std::filesystem::perms::owner_all);
    ~ScratchDirectory();
    ScratchDirectory(const ScratchDirectory&) = delete;
    ScratchDirectory& operator=(const ScratchDirectory&) = delete;

    // The directory, made on the first call; empty when it cannot be made, errno saying why.
    const std::filesystem::path& path();

    // A left-behind directory is removed only once it is this old: one just made is not locked yet.
    static constexpr int kAbandonedAfterSeconds = 60;

private:
    std::string prefix_;
    std::filesystem::perms permissions_;
    std::filesystem::path path_;
    UniqueFd lock_;
};

} // namespace hermit::tracer
