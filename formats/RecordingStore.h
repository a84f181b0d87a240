#pragma once
// Where recordings live: $HERMIT_DATA_DIR, else $XDG_DATA_HOME/hermit/recordings, else
// ~/.local/share/hermit/recordings. Each recording is a subdirectory named by its id; `latest` is a
// symlink to the newest one.

#include "Recording.h"

#include <filesystem>
#include <string>
#include <vector>

namespace hermit {

struct RecordingSummary {
    RecordingMeta meta;
    std::filesystem::path directory;
    uint64_t size_bytes = 0;
    std::string problem; // empty, or the error that made the metadata unreadable (meta then holds only id)
};

class RecordingStore {
public:
    RecordingStore(); // from the environment
    explicit RecordingStore(std::filesystem::path root);

    const std::filesystem::path& root() const { return root_; }
    // The BlobStore of the store's recordings (their system files): `.blobs` under the root.
    std::filesystem::path blobs_directory() const { return root_ / ".blobs"; }
    // Removes the blobs no recording of the store refers to; returns how many. Nothing when a recording
    // is unreadable (its references are unknown).
    size_t collect_garbage() const;
    // A new, unused id ("<name or basename>-<n>") and its directory; updates `latest` when finished.
    std::filesystem::path allocate(const std::string& name_hint, std::string& id_out);
    void mark_latest(const std::string& id);
    // Resolves an id, "latest", or a path to a recording directory. Throws E030/E035.
    // An argument containing '/' (or naming an existing directory that is not an id) is taken as a path.
    std::filesystem::path resolve(const std::string& id_or_path) const;
    // Every recording under the root, oldest first; unreadable ones are listed with `problem` set.
    std::vector<RecordingSummary> list() const;
    // Deletes one recording of this store (an id or "latest"), moving `latest` to the newest remaining.
    void remove(const std::string& id);
    // Deletes every recording of this store and the `latest` link; returns how many were removed.
    size_t remove_all();

private:
    std::filesystem::path root_;
};

} // namespace hermit
