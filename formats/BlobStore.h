#pragma once
// BlobStore: files kept by their contents, shared by every recording of a RecordingStore (its `.blobs`
// directory). A blob is named by the SHA-256 of its bytes, so a hundred recordings of python hold one
// libpython. Hashing a file is what costs; the store remembers the digest of each file it saw by its
// identity (device, inode, size, modification and change times: any write changes one of them), in an
// append-only `index`, so the same unchanged file is read once per store, not once per recording.

#include "FileIo.h"

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

namespace hermit {

class BlobStore {
public:
    explicit BlobStore(std::filesystem::path directory);

    // The digest of the open regular file `fd`, from the index when it knows the file as `status` says it
    // is, else by reading it (then remembered). Throws E034 when it cannot be read.
    std::string digest(int fd, const struct stat& status);
    // Keeps the bytes of the open regular file `fd` as a blob (nothing is written when the store holds
    // them already); returns their digest. Throws E034.
    std::string keep(int fd, const struct stat& status);

    // Where the blob of `sha256` is (whether or not it exists).
    std::filesystem::path path_of(const std::string& sha256) const;
    bool holds(const std::string& sha256) const;
    // Removes every blob whose digest is not in `referenced`; returns how many were removed.
    size_t remove_all_but(const std::set<std::string>& referenced);

private:
    using Identity = std::tuple<dev_t, ino_t, off_t, int64_t, int64_t>;
    static Identity identity_of(const struct stat& status);
    void load_index();
    void remember(const Identity& identity, const std::string& sha256);

    std::filesystem::path directory_;
    bool index_loaded_ = false;
    std::map<Identity, std::string> known_;
};

} // namespace hermit
