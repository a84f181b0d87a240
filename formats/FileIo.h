#pragma once
// Small POSIX file helpers shared by the recording writer, reader and store. They report failures as
// hermit::Error E034 naming the recording, so callers need no errno handling of their own.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace hermit {

// An open file descriptor, closed on destruction.
class UniqueFd {
public:
    UniqueFd() = default;
    explicit UniqueFd(int fd) : fd_(fd) {}
    ~UniqueFd();
    UniqueFd(UniqueFd&& other) noexcept : fd_(other.release()) {}
    UniqueFd& operator=(UniqueFd&& other) noexcept;
    UniqueFd(const UniqueFd&) = delete;
    UniqueFd& operator=(const UniqueFd&) = delete;

    int get() const { return fd_; }
    int release();

private:
    int fd_ = -1;
};

// Creates (or truncates) `path` with mode 0600 whatever the umask.
UniqueFd create_private_file(const std::filesystem::path& path, const std::string& recording, bool exclusive);
// Opens for reading; E030-style absence is the caller's business, other failures throw E034.
UniqueFd open_for_reading(const std::filesystem::path& path, const std::string& recording);
// Creates the directory (and parents) and sets mode 0700 on it.
void create_private_directory(const std::filesystem::path& path, const std::string& recording);

void write_all(int fd, std::span<const uint8_t> bytes, const std::filesystem::path& path,
               const std::string& recording);
// Reads up to bytes.size() bytes at `offset`; returns how many were read (fewer only at end of file).
size_t read_at(int fd, std::span<uint8_t> bytes, uint64_t offset, const std::filesystem::path& path,
               const std::string& recording);

// Throws E034 "<path>: <strerror(errno_value)>".
[[noreturn]] void throw_io_error(const std::string& recording, const std::filesystem::path& path,
                                 int errno_value);

} // namespace hermit
