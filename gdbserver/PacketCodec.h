#pragma once
// PacketCodec: the byte-level framing of the GDB Remote Serial Protocol, with no I/O and no knowledge of
// what packets mean. PacketDecoder is incremental: feed it whatever bytes arrived and it returns the
// events they complete; it never buffers more than the maximum packet size, so a peer sending garbage or
// oversized packets costs bounded memory and produces Rejected events rather than failures.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace hermit::gdbserver {

// The largest packet payload (between '$' and '#') we accept and advertise as PacketSize.
inline constexpr size_t kMaxPacketSize = 0x4000;

struct PacketEvent {
    enum class Kind {
        Packet,    // a complete packet with a valid checksum; payload holds the decoded data
        Interrupt, // the 0x03 byte outside a packet
        Ack,       // '+'
        Nack,      // '-': the peer wants the last packet again
        Rejected,  // a packet that cannot be used; payload says why (bad checksum, oversize, ...)
    };
    Kind kind;
    std::string payload;

    bool operator==(const PacketEvent&) const = default;
};

class PacketDecoder {
public:
    explicit PacketDecoder(size_t max_packet_size = kMaxPacketSize);

    // Consumes `bytes` and returns the events they complete, in order. Bytes of an unfinished packet are
    // kept for the next call.
    std::vector<PacketEvent> feed(std::string_view bytes);

private:
    enum class State { Idle, Data, ChecksumHigh, ChecksumLow, Notification, NotificationChecksum };

    void feed_byte(char c, std::vector<PacketEvent>& events);
    void finish_packet(std::vector<PacketEvent>& events);
    void start_packet();

    size_t max_packet_size_;
    State state_ = State::Idle;
    std::string raw_;       // payload bytes as received (escaped, run-length encoded)
    uint8_t sum_ = 0;       // running modulo-256 sum of raw payload bytes
    bool oversize_ = false; // the current packet outgrew max_packet_size_; its bytes are dropped
    char checksum_high_ = 0;
    int notification_checksum_left_ = 0;
};

// Expands '}' escapes and '*' run-length encoding of a raw payload into `out`. Returns false with a reason
// in `error` when the encoding is malformed or expands beyond `max_size`.
bool decode_payload(std::string_view raw, size_t max_size, std::string& out, std::string& error);

// Frames a payload as `$payload#xx`. With `run_length`, runs of a repeated character are compressed with
// '*' the way gdb decodes them; the payload must already have binary data escaped (escape_binary).
std::string encode_packet(std::string_view payload, bool run_length = false);

// Escapes the bytes the protocol reserves ('#', '$', '}', '*') as '}' followed by the byte XOR 0x20, for
// binary data in replies (qXfer, vFile:pread).
std::string escape_binary(std::string_view data);

} // namespace hermit::gdbserver
