#include "Sha256.h"

#include <nettle/sha2.h>

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace hermit {

namespace {

std::string to_hex(const std::array<uint8_t, SHA256_DIGEST_SIZE>& digest) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(digest.size() * 2);
    for (uint8_t byte : digest) {
        hex.push_back(kDigits[byte >> 4]);
        hex.push_back(kDigits[byte & 0xf]);
    }
    return hex;
}

} // namespace

std::string sha256_hex(std::span<const uint8_t> bytes) {
    sha256_ctx context;
    sha256_init(&context);
    sha256_update(&context, bytes.size(), bytes.data());
    std::array<uint8_t, SHA256_DIGEST_SIZE> digest{};
    sha256_digest(&context, digest.size(), digest.data());
    return to_hex(digest);
}

std::string sha256_hex_of_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw std::system_error(errno, std::generic_category(), path.string());
    }
    sha256_ctx context;
    sha256_init(&context);
    std::array<uint8_t, 64 * 1024> buffer; // NOLINT(cppcoreguidelines-pro-type-member-init): read into
    for (;;) {
        ssize_t got = ::read(fd, buffer.data(), buffer.size());
        if (got < 0 && errno == EINTR) {
            continue;
        }
        if (got < 0) {
            int saved = errno;
            ::close(fd);
            throw std::system_error(saved, std::generic_category(), path.string());
        }
        if (got == 0) {
            break;
        }
        sha256_update(&context, static_cast<size_t>(got), buffer.data());
    }
    ::close(fd);
    std::array<uint8_t, SHA256_DIGEST_SIZE> digest{};
    sha256_digest(&context, digest.size(), digest.data());
    return to_hex(digest);
}

} // namespace hermit
