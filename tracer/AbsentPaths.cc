#include "AbsentPaths.h"

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>

namespace hermit::tracer {

namespace {

bool path_exists(const std::filesystem::path& path) {
    struct stat status {};
    return lstat(path.c_str(), &status) == 0;
}

// The mount points of hermit's mount namespace (the guest's starts as a copy of it).
std::vector<std::filesystem::path> mount_points() {
    std::vector<std::filesystem::path> points;
    std::ifstream mountinfo("/proc/self/mountinfo");
    for (std::string line; std::getline(mountinfo, line);) {
        std::istringstream fields(line);
        std::string id, parent, device, root, point;
        fields >> id >> parent >> device >> root >> point;
        points.emplace_back(point);
    }
    return points;
}

bool has_mounts_below(const std::filesystem::path& directory,
                      const std::vector<std::filesystem::path>& points) {
    const std::string prefix = directory.string() + "/";
    return std::any_of(points.begin(), points.end(), [&](const std::filesystem::path& point) {
        return point.string().starts_with(prefix);
    });
}

} // namespace

AbsentPaths::AbsentPaths(const std::vector<std::string>& directories, const std::vector<std::string>& files) {
    std::vector<Made> wanted;
    for (const std::string& directory : directories) {
        wanted.push_back({directory, true});
    }
    for (const std::string& file : files) {
        wanted.push_back({file, false});
    }
    std::set<std::string> covered; // directories with an overlay
    std::vector<std::filesystem::path> points;
    for (const Made& path : wanted) {
        const std::filesystem::path absent = std::filesystem::path(path.path).lexically_normal();
        if (!absent.is_absolute() || path_exists(absent)) {
            continue;
        }
        std::vector<std::filesystem::path> chain{absent};
        std::filesystem::path existing = absent.parent_path();
        while (!path_exists(existing)) {
            chain.push_back(existing);
            existing = existing.parent_path();
        }
        if (points.empty()) {
            points = mount_points();
        }
        if (!covered.contains(existing.string())) {
            if (!plan_overlay(existing, points)) {
                unreachable_.push_back(path.path);
                continue;
            }
            covered.insert(existing.string());
        }
        for (auto made = chain.rbegin(); made != chain.rend(); ++made) {
            const bool directory = *made != absent || path.directory;
            if (std::none_of(made_.begin(), made_.end(),
                             [&](const Made& m) { return m.path == made->string(); })) {
                made_.push_back({made->string(), directory});
            }
        }
    }
}

bool AbsentPaths::plan_overlay(const std::filesystem::path& directory,
                               const std::vector<std::filesystem::path>& points) {
    if (directory == directory.root_path() || has_mounts_below(directory, points)) {
        return false;
    }
    if (!scratch_) {
        scratch_ = std::make_unique<ScratchDirectory>("mounts");
    }
    if (scratch_->path().empty()) {
        return false;
    }
    const std::string layers = (scratch_->path() / std::to_string(overlays_.size())).string();
    overlays_.push_back(
        {directory.string(), layers, layers + "/upper", layers + "/work",
         "lowerdir=" + directory.string() + ",upperdir=" + layers + "/upper,workdir=" + layers + "/work"});
    // An overlay over a directory inside another one's goes on top of it, not under it.
    std::stable_sort(overlays_.begin(), overlays_.end(), [](const Overlay& a, const Overlay& b) {
        return a.directory.size() < b.directory.size();
    });
    return true;
}

bool AbsentPaths::add_throwaway_layer(const std::string& directory) {
    const std::filesystem::path path = std::filesystem::path(directory).lexically_normal();
    if (!path.is_absolute() || !path_exists(path)) {
        return false;
    }
    return std::any_of(overlays_.begin(), overlays_.end(),
                       [&](const Overlay& overlay) { return overlay.directory == path.string(); }) ||
           plan_overlay(path, mount_points());
}

bool AbsentPaths::apply() const {
    if (overlays_.empty()) {
        return true;
    }
    const std::string scratch = scratch_->path().string();
    if (mount("tmpfs", scratch.c_str(), "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755") != 0) {
        return false;
    }
    for (const Overlay& overlay : overlays_) {
        if (mkdir(overlay.layers.c_str(), 0755) != 0 || mkdir(overlay.upper.c_str(), 0755) != 0 ||
            mkdir(overlay.work.c_str(), 0755) != 0 ||
            mount("overlay", overlay.directory.c_str(), "overlay", 0, overlay.options.c_str()) != 0) {
            return false;
        }
    }
    for (const Made& made : made_) {
        if (made.directory) {
            if (mkdir(made.path.c_str(), 0755) != 0 && errno != EEXIST) {
                return false;
            }
            continue;
        }
        const int fd = open(made.path.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        if (fd < 0) {
            return false;
        }
        close(fd);
    }
    return true;
}

} // namespace hermit::tracer
