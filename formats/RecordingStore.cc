#include "RecordingStore.h"

#include "BlobStore.h"
#include "FileIo.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <set>

namespace hermit {

namespace {

constexpr const char* kLatestLink = "latest";
constexpr const char* kMetaFile = "meta.capnp.bin";

std::filesystem::path root_from_environment() {
    if (const char* data_dir = std::getenv("HERMIT_DATA_DIR"); data_dir && *data_dir) {
        return data_dir;
    }
    if (const char* xdg = std::getenv("XDG_DATA_HOME"); xdg && *xdg) {
        return std::filesystem::path(xdg) / "hermit" / "recordings";
    }
    std::filesystem::path home;
    if (const char* home_env = std::getenv("HOME"); home_env && *home_env) {
        home = home_env;
    } else if (const passwd* entry = ::getpwuid(::getuid())) {
        home = entry->pw_dir;
    } else {
        home = "/tmp";
    }
    return home / ".local" / "share" / "hermit" / "recordings";
}

// Ids become directory names and command-line arguments: keep them to a portable, shell-safe alphabet.
std::string id_base(const std::string& name_hint) {
    std::string base = std::filesystem::path(name_hint).filename().string();
    for (char& c : base) {
        const bool safe = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                          c == '.' || c == '_' || c == '+' || c == '-';
        if (!safe) {
            c = '_';
        }
    }
    if (base.empty() || base == "." || base == ".." || base.front() == '.') {
        base = "recording" + base;
    }
    return base;
}

// N if `name` is "<base>-N", else 0.
uint64_t sequence_number(const std::string& name, const std::string& base) {
    if (name.size() <= base.size() + 1 || name.compare(0, base.size(), base) != 0 ||
        name[base.size()] != '-') {
        return 0;
    }
    uint64_t number = 0;
    const char* begin = name.data() + base.size() + 1;
    const char* end = name.data() + name.size();
    auto [last, error] = std::from_chars(begin, end, number);
    return (error == std::errc() && last == end) ? number : 0;
}

uint64_t size_on_disk(const std::filesystem::path& directory) {
    uint64_t total = 0;
    std::error_code error;
    for (auto it = std::filesystem::recursive_directory_iterator(directory, error);
         !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
        std::error_code size_error;
        if (it->is_regular_file(size_error)) {
            auto size = it->file_size(size_error);
            if (!size_error) {
                total += size;
            }
        }
    }
    return total;
}

} // namespace

RecordingStore::RecordingStore() : root_(root_from_environment()) {}

RecordingStore::RecordingStore(std::filesystem::path root) : root_(std::move(root)) {}

std::filesystem::path RecordingStore::allocate(const std::string& name_hint, std::string& id_out) {
    create_private_directory(root_, root_.string());
    const std::string base = id_base(name_hint);
    uint64_t highest = 0;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(root_, error)) {
        highest = std::max(highest, sequence_number(entry.path().filename().string(), base));
    }
    if (error) {
        throw_io_error(root_.string(), root_, error.value());
    }
    // mkdir is the reservation: two hermits allocating at once get different ids.
    for (uint64_t number = highest + 1;; ++number) {
        std::string id = base + "-" + std::to_string(number);
        auto directory = root_ / id;
        if (::mkdir(directory.c_str(), 0700) == 0) {
            if (::chmod(directory.c_str(), 0700) != 0) {
                throw_io_error(id, directory, errno);
            }
            id_out = id;
            return directory;
        }
        if (errno != EEXIST) {
            throw_io_error(id, directory, errno);
        }
    }
}

void RecordingStore::mark_latest(const std::string& id) {
    const auto link = root_ / kLatestLink;
    const auto temporary = root_ / (std::string(kLatestLink) + ".tmp" + std::to_string(::getpid()));
    ::unlink(temporary.c_str());
    if (::symlink(id.c_str(), temporary.c_str()) != 0) {
        throw_io_error(id, temporary, errno);
    }
    if (::rename(temporary.c_str(), link.c_str()) != 0) {
        int saved = errno;
        ::unlink(temporary.c_str());
        throw_io_error(id, link, saved);
    }
}

std::filesystem::path RecordingStore::resolve(const std::string& id_or_path) const {
    std::error_code error;
    if (id_or_path == kLatestLink) {
        const auto link = root_ / kLatestLink;
        auto target = std::filesystem::read_symlink(link, error);
        if (error) {
            if (list().empty()) {
                throw Error(ErrorCode::NoRecordings);
            }
            throw Error(ErrorCode::RecordingNotFound, id_or_path);
        }
        auto directory = target.is_absolute() ? target : root_ / target;
        if (!std::filesystem::is_directory(directory, error)) {
            throw Error(ErrorCode::RecordingNotFound, id_or_path);
        }
        return directory;
    }
    const bool looks_like_path = id_or_path.find('/') != std::string::npos || id_or_path == "." ||
                                 id_or_path == ".." || id_or_path.empty();
    if (!looks_like_path && std::filesystem::is_directory(root_ / id_or_path, error)) {
        return root_ / id_or_path;
    }
    if (!id_or_path.empty() &&
        std::filesystem::exists(std::filesystem::path(id_or_path) / kMetaFile, error)) {
        return std::filesystem::path(id_or_path);
    }
    throw Error(ErrorCode::RecordingNotFound, id_or_path);
}

std::vector<RecordingSummary> RecordingStore::list() const {
    std::vector<RecordingSummary> summaries;
    std::error_code error;
    if (!std::filesystem::is_directory(root_, error)) {
        return summaries;
    }
    for (const auto& entry : std::filesystem::directory_iterator(root_, error)) {
        std::error_code entry_error;
        if (entry.is_symlink(entry_error) || !entry.is_directory(entry_error) ||
            entry.path().filename().string().starts_with('.')) {
            continue; // `latest`, files, `.blobs`
        }
        RecordingSummary summary;
        summary.directory = entry.path();
        summary.size_bytes = size_on_disk(entry.path());
        try {
            RecordingReader reader(entry.path());
            summary.meta = reader.meta();
        } catch (const Error& problem) {
            summary.meta.id = entry.path().filename().string();
            summary.problem = problem.what();
        }
        summaries.push_back(std::move(summary));
    }
    if (error) {
        throw_io_error(root_.string(), root_, error.value());
    }
    std::sort(summaries.begin(), summaries.end(), [](const RecordingSummary& a, const RecordingSummary& b) {
        if (a.meta.started_at_unix_ms != b.meta.started_at_unix_ms) {
            return a.meta.started_at_unix_ms < b.meta.started_at_unix_ms;
        }
        return a.directory.filename() < b.directory.filename();
    });
    return summaries;
}

void RecordingStore::remove(const std::string& id) {
    const auto directory = resolve(id);
    std::error_code error;
    const auto canonical_root = std::filesystem::weakly_canonical(root_, error);
    const auto canonical_directory = std::filesystem::weakly_canonical(directory, error);
    if (canonical_directory.parent_path() != canonical_root) {
        throw Error(
            ErrorCode::UsageError,
            fmt::format("'{}' is not in the recording store {}; remove it yourself", id, root_.string()));
    }
    const std::string removed_id = canonical_directory.filename().string();
    std::filesystem::remove_all(canonical_directory, error);
    if (error) {
        throw_io_error(removed_id, canonical_directory, error.value());
    }
    const auto link = root_ / kLatestLink;
    auto target = std::filesystem::read_symlink(link, error);
    if (!error && target.filename() == removed_id) {
        auto remaining = list();
        if (remaining.empty()) {
            std::filesystem::remove(link, error);
        } else {
            mark_latest(remaining.back().directory.filename().string());
        }
    }
    collect_garbage();
}

size_t RecordingStore::collect_garbage() const {
    std::set<std::string> referenced;
    for (const RecordingSummary& summary : list()) {
        if (!summary.problem.empty()) {
            return 0;
        }
        for (const SystemFile& file : summary.meta.system_files) {
            referenced.insert(file.sha256);
        }
    }
    return BlobStore(blobs_directory()).remove_all_but(referenced);
}

size_t RecordingStore::remove_all() {
    size_t removed = 0;
    for (const auto& summary : list()) {
        // Only directories that look like recordings: the root may be shared with other files.
        std::error_code error;
        if (!std::filesystem::exists(summary.directory / kMetaFile, error) &&
            !std::filesystem::exists(summary.directory / "events.hrec", error)) {
            continue;
        }
        std::filesystem::remove_all(summary.directory, error);
        if (error) {
            throw_io_error(summary.meta.id, summary.directory, error.value());
        }
        ++removed;
    }
    std::error_code error;
    std::filesystem::remove(root_ / kLatestLink, error);
    collect_garbage();
    return removed;
}

} // namespace hermit
