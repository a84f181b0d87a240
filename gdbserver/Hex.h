#pragma once
// Hex encoding as the GDB remote protocol uses it: two lowercase digits per byte for binary data, and
// unpadded big-endian hex for numbers (addresses, lengths, register numbers, thread ids).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace hermit::gdbserver {

std::string hex_encode(const void* data, size_t length);
std::string hex_encode(std::string_view text);
// The value of one hex digit (either case), or -1 when `c` is not one.
int hex_digit_value(char c);
// Decodes pairs of hex digits; nullopt when the length is odd or a character is not a hex digit.
std::optional<std::vector<uint8_t>> hex_decode(std::string_view hex);
// Parses an unpadded hex number that must fill `text` completely and fit in 64 bits.
std::optional<uint64_t> parse_hex_number(std::string_view text);
std::string format_hex_number(uint64_t value);

} // namespace hermit::gdbserver
