#pragma once
// SHA-256 digests (lowercase hex) of files the guest read: a recorded copy's identity and its check.
// Backed by nettle, which Debian already ships as a small C library.

#include <nettle/sha2.h>

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace hermit {

// A digest built from pieces, for bytes that are copied anyway (nothing is read twice).
class Sha256 {
public:
    Sha256();
    void update(std::span<const uint8_t> bytes);
    // The digest of everything added so far.
    std::string hex_digest();

private:
    sha256_ctx context_;
};

std::string sha256_hex(std::span<const uint8_t> bytes);
// Streams the file; throws std::system_error when it cannot be read.
std::string sha256_hex_of_file(const std::filesystem::path& path);

} // namespace hermit
