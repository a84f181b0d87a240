#include "MadeNames.h"

#include <algorithm>
#include <string_view>
#include <system_error>

namespace hermit::replay {

namespace {

// Appends the names of `path` to `names` last first (the stack resolve() takes them from), "." and empty
// ones dropped; ".." kept, since it must be taken after the symlinks before it.
void push_names(std::string_view path, std::vector<std::string>& names) {
    size_t end = path.size();
    while (end > 0) {
        const size_t slash = path.rfind('/', end - 1);
        const size_t start = slash == std::string_view::npos ? 0 : slash + 1;
        const std::string_view name = path.substr(start, end - start);
        if (!name.empty() && name != ".") {
            names.emplace_back(name);
        }
        if (slash == std::string_view::npos) {
            break;
        }
        end = slash;
    }
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
    // Plain strings: a replay resolves a path at every open and name change (git add: thousands).
    std::vector<std::string> names; // the next one last
    push_names(absolute_path, names);
    std::string resolved = "/";
    bool through_made_symlink = false;
    int followed = 0;
    while (!names.empty()) {
        const std::string name = std::move(names.back());
        names.pop_back();
        if (name == "..") {
            resolved.resize(std::max<size_t>(resolved.rfind('/'), 1));
            continue;
        }
        std::string next = resolved.size() == 1 ? "/" + name : resolved + "/" + name;
        std::optional<std::string> target;
        if ((follow_last || !names.empty()) && followed < kMaxSymlinks) {
            target = symlink_target(next);
            through_made_symlink = through_made_symlink || target.has_value();
            if (!target && !replaced_.contains(next)) {
                target = real_symlink_target(next);
            }
        }
        if (!target || target->empty()) {
            resolved = std::move(next);
            continue;
        }
        followed++;
        // Relative targets from the link's directory, absolute ones from the root.
        if (target->starts_with("/")) {
            resolved = "/";
        }
        push_names(*target, names);
    }
    return {resolved, through_made_symlink};
}

} // namespace hermit::replay
