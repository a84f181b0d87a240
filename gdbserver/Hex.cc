#include "Hex.h"

namespace hermit::gdbserver {

namespace {

constexpr char kDigits[] = "0123456789abcdef";

} // namespace

int hex_digit_value(char c) {
    if (c >= '0' && c <= '9') {
        return c - '0';
    }
    if (c >= 'a' && c <= 'f') {
        return c - 'a' + 10;
    }
    if (c >= 'A' && c <= 'F') {
        return c - 'A' + 10;
    }
    return -1;
}

std::string hex_encode(const void* data, size_t length) {
    const auto* bytes = static_cast<const uint8_t*>(data);
    std::string out;
    out.reserve(length * 2);
    for (size_t i = 0; i < length; ++i) {
        out.push_back(kDigits[bytes[i] >> 4]);
        out.push_back(kDigits[bytes[i] & 0xf]);
    }
    return out;
}

std::string hex_encode(std::string_view text) {
    return hex_encode(text.data(), text.size());
}

std::optional<std::vector<uint8_t>> hex_decode(std::string_view hex) {
    if (hex.size() % 2 != 0) {
        return std::nullopt;
    }
    std::vector<uint8_t> out;
    out.reserve(hex.size() / 2);
    for (size_t i = 0; i < hex.size(); i += 2) {
        int high = hex_digit_value(hex[i]);
        int low = hex_digit_value(hex[i + 1]);
        if (high < 0 || low < 0) {
            return std::nullopt;
        }
        out.push_back(static_cast<uint8_t>(high << 4 | low));
    }
    return out;
}

std::optional<uint64_t> parse_hex_number(std::string_view text) {
    while (text.size() > 16 && text.front() == '0') {
        text.remove_prefix(1);
    }
    if (text.empty() || text.size() > 16) {
        return std::nullopt;
    }
    uint64_t value = 0;
    for (char c : text) {
        int digit = hex_digit_value(c);
        if (digit < 0) {
            return std::nullopt;
        }
        value = value << 4 | static_cast<uint64_t>(digit);
    }
    return value;
}

std::string format_hex_number(uint64_t value) {
    std::string out;
    do {
        out.insert(out.begin(), kDigits[value & 0xf]);
        value >>= 4;
    } while (value != 0);
    return out;
}

} // namespace hermit::gdbserver
