#pragma once
// SHA-256 digests (lowercase hex) of files the guest read, used as their names under files/.
// Backed by nettle, which Debian already ships as a small C library.

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace hermit {

std::string sha256_hex(std::span<const uint8_t> bytes);
// Streams the file; throws std::system_error when it cannot be read.
std::string sha256_hex_of_file(const std::filesystem::path& path);

} // namespace hermit
