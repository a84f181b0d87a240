#include "Sha256.h"

#include <array>
#include <cerrno>
#include <fcntl.h>
#include <system_error>
#include <unistd.h>

namespace hermit {

Sha256::Sha256() : context_{} {
    sha256_init(&context_);
}

void Sha256::update(std::span<const uint8_t> bytes) {
    sha256_update(&context_, bytes.size(), bytes.data());
}

std::string Sha256::hex_digest() {
    std::array<uint8_t, SHA256_DIGEST_SIZE> digest{};
    sha256_digest(&context_, digest.size(), digest.data());
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string hex;
    hex.reserve(digest.size() * 2);
    for (uint8_t byte : digest) {
        hex.push_back(kDigits[byte >> 4]);
        hex.push_back(kDigits[byte & 0xf]);
    }
    return hex;
}

std::string sha256_hex(std::span<const uint8_t> bytes) {
    Sha256 digest;
    digest.update(bytes);
    return digest.hex_digest();
}

std::string sha256_hex_of_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        throw std::system_error(errno, std::generic_category(), path.string());
    }
    Sha256 digest;
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
        digest.update(std::span<const uint8_t>(buffer.data(), static_cast<size_t>(got)));
    }
    ::close(fd);
    return digest.hex_digest();
}

} // namespace hermit
