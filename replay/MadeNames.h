#pragma once
// MadeNames: the replay's view of the names a replayed guest made and removed. A replay emulates the
// guest's name changes from the log and never makes them in the user's file system, so a path the guest
// names is resolved here the way its kernel resolved it when recorded: the real file system overlaid with
// the symlinks and directories the guest made and has not removed since, without the names it removed
// (which the real file system may still hold). Paths are absolute, their directories resolved (as
// entry_path() gives them). An opened directory the guest made is a stand-in: an empty directory in the
// replay's scratch area, whose descriptor names it (getdents and stats of it are emulated from the log).

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace hermit::replay {

class MadeNames {
public:
    // Symlinks the kernel follows on a path before giving up with ELOOP.
    static constexpr int kMaxSymlinks = 40;

    void made_symlink(const std::string& link, const std::string& target);
    void made_directory(const std::string& directory);
    // A file made by an open or a link.
    void made_file(const std::string& path);
    // An unlink or rmdir of `path`.
    void removed(const std::string& path);
    // A rename: what `to` was is gone, and `from` with everything under it is now under `to`.
    void renamed(const std::string& from, const std::string& to);

    // Unlinked or renamed away by the guest, and not made again since.
    bool was_removed(const std::string& path) const { return removed_.contains(path); }
    // The target of a symlink the guest made, as it wrote it.
    std::optional<std::string> symlink_target(const std::string& link) const;
    bool is_directory(const std::string& path) const { return directories_.contains(path); }
    // The stand-in of a directory the guest made, once it has one.
    std::optional<std::filesystem::path> stand_in(const std::string& directory) const;
    void set_stand_in(const std::string& directory, const std::filesystem::path& stand_in);
    // `host_path` (a descriptor's path read from /proc) with a stand-in prefix back to the guest's name.
    std::string guest_name(const std::string& host_path) const;

    struct Resolved {
        std::string path;
        // The kernel would not find `path` from the guest's path: a symlink the guest made is on the way.
        bool through_made_symlink = false;
    };
    // `absolute_path` with its symlinks resolved, on the real file system and among the ones the guest made,
    // the last one only when `follow_last`. After kMaxSymlinks symlinks the rest is left as it is.
    Resolved resolve(const std::string& absolute_path, bool follow_last) const;
    // A path that names a directory entry (unlink, rename, mkdir): its directory resolved, its last name
    // kept.
    std::string entry_path(const std::string& absolute_path) const {
        return resolve(absolute_path, false).path;
    }

    // The entries of `names` at or under `from` moved under `to`, those at or under `to` dropped first.
    template <typename Value>
    static void move_entries(std::map<std::string, Value>& names, const std::string& from,
                             const std::string& to);

private:
    // The real symlink target of `name`, or empty.
    const std::string& real_symlink_target(const std::string& name) const;

    std::map<std::string, std::string> symlinks_;                             // link -> target
    std::map<std::string, std::optional<std::filesystem::path>> directories_; // directory -> stand-in
    std::set<std::string> removed_; // unlinked or renamed away, not made again since
    // Every name the guest made, removed or renamed: what the real file system holds there is not the
    // guest's any more, so a symlink found there is not followed.
    std::unordered_set<std::string> replaced_;
    // The target of each real name looked at, empty for one that is no symlink. A replay never changes the
    // real file system (it emulates the guest's name changes), so each name is read once: a path names
    // every directory above it, and a replay resolves a path at every open (git add: 8000 lstats).
    mutable std::unordered_map<std::string, std::string> real_symlinks_;
    bool has_stand_ins_ = false; // most replays open no directory the guest made: no path to name back
};

// Whether `path` is `directory` or a path under it.
bool is_at_or_under(const std::string& path, const std::string& directory);

template <typename Value>
void MadeNames::move_entries(std::map<std::string, Value>& names, const std::string& from,
                             const std::string& to) {
    std::erase_if(names, [&](const auto& entry) { return is_at_or_under(entry.first, to); });
    std::map<std::string, Value> moved;
    for (auto entry = names.lower_bound(from); entry != names.end() && entry->first.starts_with(from);) {
        if (is_at_or_under(entry->first, from)) {
            moved.emplace(to + entry->first.substr(from.size()), std::move(entry->second));
            entry = names.erase(entry);
        } else {
            ++entry;
        }
    }
    names.merge(moved);
}

} // namespace hermit::replay
