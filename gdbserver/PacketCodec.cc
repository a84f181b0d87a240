#include "PacketCodec.h"

#include "Hex.h"

#include <fmt/format.h>

namespace hermit::gdbserver {

namespace {

constexpr char kEscape = '}';
constexpr char kRunLength = '*';
// A run-length count is encoded as the character (count + 29); gdb requires it to be printable and not
// one of the framing characters, which rules out counts 6 ('#') and 7 ('$'). Counts above 97 would leave
// the printable range.
constexpr int kRunLengthBias = 29;
constexpr int kMaxRunLength = 97;

uint8_t checksum(std::string_view data) {
    uint8_t sum = 0;
    for (char c : data) {
        sum = static_cast<uint8_t>(sum + static_cast<uint8_t>(c));
    }
    return sum;
}

} // namespace

PacketDecoder::PacketDecoder(size_t max_packet_size) : max_packet_size_(max_packet_size) {}

std::vector<PacketEvent> PacketDecoder::feed(std::string_view bytes) {
    std::vector<PacketEvent> events;
    for (char c : bytes) {
        feed_byte(c, events);
    }
    return events;
}

void PacketDecoder::start_packet() {
    state_ = State::Data;
    raw_.clear();
    sum_ = 0;
    oversize_ = false;
}

void PacketDecoder::feed_byte(char c, std::vector<PacketEvent>& events) {
    switch (state_) {
    case State::Idle:
        if (c == '$') {
            start_packet();
        } else if (c == '\x03') {
            events.push_back({PacketEvent::Kind::Interrupt, {}});
        } else if (c == '+') {
            events.push_back({PacketEvent::Kind::Ack, {}});
        } else if (c == '-') {
            events.push_back({PacketEvent::Kind::Nack, {}});
        } else if (c == '%') {
            state_ = State::Notification;
        }
        // Anything else between packets is line noise and is dropped.
        return;
    case State::Data:
        if (c == '#') {
            state_ = State::ChecksumHigh;
        } else if (c == '$') {
            // A '$' cannot occur unescaped inside a packet: the peer abandoned the packet and restarted.
            events.push_back({PacketEvent::Kind::Rejected, "packet restarted by '$' before its end"});
            start_packet();
        } else {
            sum_ = static_cast<uint8_t>(sum_ + static_cast<uint8_t>(c));
            if (raw_.size() < max_packet_size_) {
                raw_.push_back(c);
            } else {
                oversize_ = true;
            }
        }
        return;
    case State::ChecksumHigh:
        checksum_high_ = c;
        state_ = State::ChecksumLow;
        return;
    case State::ChecksumLow: {
        state_ = State::Idle;
        int high = hex_digit_value(checksum_high_);
        int low = hex_digit_value(c);
        if (high < 0 || low < 0) {
            events.push_back({PacketEvent::Kind::Rejected, "checksum is not two hex digits"});
        } else if (oversize_) {
            events.push_back(
                {PacketEvent::Kind::Rejected, fmt::format("packet longer than {} bytes", max_packet_size_)});
        } else if (static_cast<uint8_t>(high << 4 | low) != sum_) {
            events.push_back({PacketEvent::Kind::Rejected,
                              fmt::format("bad checksum {:02x}, expected {:02x}", high << 4 | low, sum_)});
        } else {
            finish_packet(events);
        }
        raw_.clear();
        return;
    }
    case State::Notification:
        // Notifications (%data#xx) only flow from stub to gdb; one arriving here is skipped entirely.
        if (c == '#') {
            state_ = State::NotificationChecksum;
            notification_checksum_left_ = 2;
        }
        return;
    case State::NotificationChecksum:
        if (--notification_checksum_left_ == 0) {
            state_ = State::Idle;
        }
        return;
    }
}

void PacketDecoder::finish_packet(std::vector<PacketEvent>& events) {
    std::string payload;
    std::string error;
    if (decode_payload(raw_, max_packet_size_, payload, error)) {
        events.push_back({PacketEvent::Kind::Packet, std::move(payload)});
    } else {
        events.push_back({PacketEvent::Kind::Rejected, std::move(error)});
    }
}

bool decode_payload(std::string_view raw, size_t max_size, std::string& out, std::string& error) {
    out.clear();
    for (size_t i = 0; i < raw.size(); ++i) {
        char c = raw[i];
        if (c == kEscape) {
            if (i + 1 == raw.size()) {
                error = "escape character at the end of the packet";
                return false;
            }
            out.push_back(static_cast<char>(raw[++i] ^ 0x20));
        } else if (c == kRunLength) {
            if (out.empty() || i + 1 == raw.size()) {
                error = "run-length marker without a character to repeat or a count";
                return false;
            }
            int count = static_cast<uint8_t>(raw[++i]) - kRunLengthBias;
            if (count < 0) {
                error = "run-length count below zero";
                return false;
            }
            if (out.size() + static_cast<size_t>(count) > max_size) {
                error = fmt::format("run-length encoding expands beyond {} bytes", max_size);
                return false;
            }
            out.append(static_cast<size_t>(count), out.back());
        } else {
            out.push_back(c);
        }
        if (out.size() > max_size) {
            error = fmt::format("packet longer than {} bytes", max_size);
            return false;
        }
    }
    return true;
}

std::string encode_packet(std::string_view payload, bool run_length) {
    std::string body;
    body.reserve(payload.size());
    for (size_t i = 0; i < payload.size();) {
        char c = payload[i];
        size_t run = 1;
        // An escaped byte is two characters whose second one must not be repeated on its own, so runs
        // start only at characters that are neither an escape nor escaped.
        bool escaped = c == kEscape || (i > 0 && payload[i - 1] == kEscape);
        if (run_length && !escaped) {
            while (i + run < payload.size() && payload[i + run] == c && run <= kMaxRunLength) {
                ++run;
            }
        }
        int repeats = static_cast<int>(run) - 1;
        if (repeats == 6 || repeats == 7) {
            repeats = 5;
        }
        // A run of fewer than 3 repeats is no shorter encoded.
        if (repeats >= 3) {
            body.push_back(c);
            body.push_back(kRunLength);
            body.push_back(static_cast<char>(repeats + kRunLengthBias));
            i += static_cast<size_t>(repeats) + 1;
        } else {
            body.push_back(c);
            i += 1;
        }
    }
    return fmt::format("${}#{:02x}", body, checksum(body));
}

std::string escape_binary(std::string_view data) {
    std::string out;
    out.reserve(data.size());
    for (char c : data) {
        if (c == '#' || c == '$' || c == kEscape || c == kRunLength) {
            out.push_back(kEscape);
            out.push_back(static_cast<char>(c ^ 0x20));
        } else {
            out.push_back(c);
        }
    }
    return out;
}

} // namespace hermit::gdbserver
