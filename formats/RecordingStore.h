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
};

class RecordingStore {
public:
    RecordingStore(); // from the environment
    explicit RecordingStore(std::filesystem::path root);

    const std::filesystem::path& root() const { return root_; }
    // A new, unused id ("<name or basename>-<n>") and its directory; updates `latest` when finished.
    std::filesystem::path allocate(const std::string& name_hint, std::string& id_out);
    void mark_latest(const std::string& id);
    // Resolves an id, "latest", or a path to a recording directory. Throws E030/E035.
    std::filesystem::path resolve(const std::string& id_or_path) const;
    std::vector<RecordingSummary> list() const;
    void remove(const std::string& id);
    void remove_all();

private:
    std::filesystem::path root_;
};

} // namespace hermit
