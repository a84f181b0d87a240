#include "MadeNames.h"

#include <deque>
#include <system_error>

namespace hermit::replay {

namespace {

// The names of a path, "." dropped; ".." kept, since it must be taken after the symlinks before it.
std::deque<std::string> names_of(const std::filesystem::path& path) {
    std::deque<std::string> names;
    for (const std::filesystem::path& name : path.relative_path()) {
        if (!name.empty() && name != ".") {
            names.push_back(name.string());
        }
    }
    return names;
}

} // namespace

bool is_at_or_under(const std::string& path, const std::string& directory) {
    return path.starts_with(directory) && (path.size() == directory.size() || path[directory.size()] == '/');
}

void MadeNames::made_symlink(const std::string& link, const std::string& target) {
    symlinks_[link] = target;
    made_file(link);
}

void MadeNames::made_directory(const std::string& directory) {
    directories_[directory];
    made_file(directory);
}

void MadeNames::made_file(const std::string& path) {
    removed_.erase(path);
    replaced_.insert(path);
}

void MadeNames::removed(const std::string& path) {
    symlinks_.erase(path);
    directories_.erase(path);
    removed_.insert(path);
    replaced_.insert(path);
}

void MadeNames::renamed(const std::string& from, const std::string& to) {
    move_entries(symlinks_, from, to);
    move_entries(directories_, from, to);
    removed(from);
    made_file(to);
}

std::optional<std::string> MadeNames::symlink_target(const std::string& link) const {
    auto found = symlinks_.find(link);
    return found != symlinks_.end() ? std::optional(found->second) : std::nullopt;
}

std::optional<std::filesystem::path> MadeNames::stand_in(const std::string& directory) const {
    auto found = directories_.find(directory);
    return found != directories_.end() ? found->second : std::nullopt;
}

void MadeNames::set_stand_in(const std::string& directory, const std::filesystem::path& stand_in) {
    directories_[directory] = stand_in;
    has_stand_ins_ = true;
}

std::string MadeNames::guest_name(const std::string& host_path) const {
    if (!has_stand_ins_) {
        return host_path;
    }
    for (const auto& [directory, stand_in] : directories_) {
        if (stand_in && is_at_or_under(host_path, stand_in->string())) {
            return directory + host_path.substr(stand_in->string().size());
        }
    }
    return host_path;
}

const std::string& MadeNames::real_symlink_target(const std::string& name) const {
    auto [known, added] = real_symlinks_.try_emplace(name);
    if (added) {
        std::error_code error;
        if (std::filesystem::is_symlink(std::filesystem::symlink_status(name, error))) {
            known->second = std::filesystem::read_symlink(name, error).string();
        }
    }
    return known->second;
}

MadeNames::Resolved MadeNames::resolve(const std::string& absolute_path, bool follow_last) const {
    std::deque<std::string> names = names_of(absolute_path);
    std::filesystem::path resolved = "/";
    bool through_made_symlink = false;
    int followed = 0;
    while (!names.empty()) {
        const std::string name = names.front();
        names.pop_front();
        if (name == "..") {
            resolved = resolved.parent_path();
            continue;
        }
        const std::filesystem::path next = resolved / name;
        std::optional<std::string> target;
        if ((follow_last || !names.empty()) && followed < kMaxSymlinks) {
            target = symlink_target(next.string());
            through_made_symlink = through_made_symlink || target.has_value();
            if (!target && !replaced_.contains(next.string())) {
                target = real_symlink_target(next.string());
            }
        }
        if (!target || target->empty()) {
            resolved = next;
            continue;
        }
        followed++;
        // Relative targets from the link's directory, absolute ones from the root.
        if (target->starts_with("/")) {
            resolved = "/";
        }
        std::deque<std::string> target_names = names_of(*target);
        names.insert(names.begin(), target_names.begin(), target_names.end());
    }
    return {resolved.string(), through_made_symlink};
}

} // namespace hermit::replay
