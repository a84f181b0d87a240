#include "gdbserver/PacketCodec.h"

#include <gtest/gtest.h>

#include <string>

namespace hermit::gdbserver {
namespace {

using Kind = PacketEvent::Kind;

PacketEvent packet(std::string payload) {
    return {Kind::Packet, std::move(payload)};
}

std::vector<Kind> kinds(const std::vector<PacketEvent>& events) {
    std::vector<Kind> out;
    for (const auto& event : events) {
        out.push_back(event.kind);
    }
    return out;
}

TEST(PacketCodec, EncodesWithChecksum) {
    EXPECT_EQ(encode_packet("OK"), "$OK#9a");
    EXPECT_EQ(encode_packet(""), "$#00");
    EXPECT_EQ(encode_packet("g"), "$g#67");
}

TEST(PacketCodec, DecodesOnePacket) {
    PacketDecoder decoder;
    EXPECT_EQ(decoder.feed("$qSupported:multiprocess+#c6"), std::vector{packet("qSupported:multiprocess+")});
}

TEST(PacketCodec, DecodesAcrossFeedsByteByByte) {
    PacketDecoder decoder;
    std::string frame = encode_packet("m1000,4");
    std::vector<PacketEvent> events;
    for (char c : frame) {
        for (auto& event : decoder.feed(std::string(1, c))) {
            events.push_back(event);
        }
    }
    EXPECT_EQ(events, std::vector{packet("m1000,4")});
}

TEST(PacketCodec, AcceptsUppercaseChecksumDigits) {
    PacketDecoder decoder;
    EXPECT_EQ(decoder.feed("$OK#9A"), std::vector{packet("OK")});
}

TEST(PacketCodec, ReportsAcksNacksAndInterrupts) {
    PacketDecoder decoder;
    EXPECT_EQ(kinds(decoder.feed("+-\x03+")),
              (std::vector{Kind::Ack, Kind::Nack, Kind::Interrupt, Kind::Ack}));
}

TEST(PacketCodec, InterruptByteInsidePacketIsData) {
    PacketDecoder decoder;
    std::string payload = "X1000,1:\x03";
    EXPECT_EQ(decoder.feed(encode_packet(payload)), std::vector{packet(payload)});
}

TEST(PacketCodec, RejectsBadChecksumAndRecovers) {
    PacketDecoder decoder;
    auto events = decoder.feed("$OK#00$OK#9a");
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, Kind::Rejected);
    EXPECT_NE(events[0].payload.find("bad checksum"), std::string::npos);
    EXPECT_EQ(events[1], packet("OK"));
}

TEST(PacketCodec, RejectsNonHexChecksum) {
    PacketDecoder decoder;
    auto events = decoder.feed("$OK#zz");
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, Kind::Rejected);
    EXPECT_NE(events[0].payload.find("hex"), std::string::npos);
}

TEST(PacketCodec, SkipsGarbageBetweenPackets) {
    PacketDecoder decoder;
    EXPECT_EQ(decoder.feed("hello\r\n\xff\x7f" + encode_packet("g") + "noise"), std::vector{packet("g")});
}

TEST(PacketCodec, TruncatedPacketWaitsAndDollarRestarts) {
    PacketDecoder decoder;
    EXPECT_TRUE(decoder.feed("$m10").empty());
    auto events = decoder.feed(encode_packet("g"));
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, Kind::Rejected);
    EXPECT_EQ(events[1], packet("g"));
}

TEST(PacketCodec, RejectsOversizePacketWithBoundedBuffering) {
    PacketDecoder decoder(64);
    std::string big(100000, 'a');
    EXPECT_TRUE(decoder.feed("$" + big).empty());
    auto events = decoder.feed("#00" + encode_packet("OK"));
    ASSERT_EQ(events.size(), 2u);
    EXPECT_EQ(events[0].kind, Kind::Rejected);
    EXPECT_NE(events[0].payload.find("longer than 64"), std::string::npos);
    EXPECT_EQ(events[1], packet("OK"));
}

TEST(PacketCodec, AcceptsPacketOfExactlyMaximumSize) {
    PacketDecoder decoder(64);
    std::string payload(64, 'z');
    EXPECT_EQ(decoder.feed(encode_packet(payload)), std::vector{packet(payload)});
}

TEST(PacketCodec, KeepsEmbeddedNuls) {
    PacketDecoder decoder;
    std::string payload("X0,3:\0\0\0", 8);
    EXPECT_EQ(decoder.feed(encode_packet(payload)), std::vector{packet(payload)});
}

TEST(PacketCodec, UnescapesBinaryData) {
    PacketDecoder decoder;
    std::string binary = std::string("X0,4:") + escape_binary("#$}*");
    EXPECT_EQ(binary, "X0,4:}\x03}\x04}]}\x0a");
    EXPECT_EQ(decoder.feed(encode_packet(binary)), std::vector{packet("X0,4:#$}*")});
}

TEST(PacketCodec, RejectsEscapeAtEnd) {
    PacketDecoder decoder;
    auto events = decoder.feed(encode_packet("abc}"));
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, Kind::Rejected);
}

TEST(PacketCodec, ExpandsRunLengthEncoding) {
    PacketDecoder decoder;
    // '0' followed by "* " repeats it 32 - 29 = 3 more times.
    EXPECT_EQ(decoder.feed(encode_packet("0* 1")), std::vector{packet("00001")});
}

TEST(PacketCodec, RejectsMalformedRunLength) {
    PacketDecoder decoder;
    EXPECT_EQ(kinds(decoder.feed(encode_packet("*!"))), std::vector{Kind::Rejected});
    EXPECT_EQ(kinds(decoder.feed(encode_packet("a*"))), std::vector{Kind::Rejected});
    EXPECT_EQ(kinds(decoder.feed(encode_packet("a*\x01"))), std::vector{Kind::Rejected});
}

TEST(PacketCodec, RejectsRunLengthExpandingBeyondMaximum) {
    PacketDecoder decoder(16);
    auto events = decoder.feed(encode_packet("a*~"));
    ASSERT_EQ(events.size(), 1u);
    EXPECT_EQ(events[0].kind, Kind::Rejected);
}

TEST(PacketCodec, RunLengthOutputRoundTripsForEveryRunLength) {
    for (size_t length = 1; length < 300; ++length) {
        std::string payload = "x" + std::string(length, '0') + "y";
        std::string frame = encode_packet(payload, true);
        EXPECT_EQ(frame.find('#'), frame.size() - 3) << length;
        EXPECT_EQ(frame.find('$', 1), std::string::npos) << length;
        PacketDecoder decoder;
        EXPECT_EQ(decoder.feed(frame), std::vector{packet(payload)}) << length;
    }
}

TEST(PacketCodec, RunLengthOutputIsShorter) {
    EXPECT_LT(encode_packet(std::string(64, '0'), true).size(), encode_packet(std::string(64, '0')).size());
}

TEST(PacketCodec, RunLengthLeavesEscapesIntact) {
    std::string payload = "l" + escape_binary("}}}}}}}}####");
    PacketDecoder decoder;
    EXPECT_EQ(decoder.feed(encode_packet(payload, true)), std::vector{packet("l}}}}}}}}####")});
}

TEST(PacketCodec, SkipsNotifications) {
    PacketDecoder decoder;
    EXPECT_EQ(decoder.feed("%Stop:T05#aa" + encode_packet("g")), std::vector{packet("g")});
}

TEST(PacketCodec, NeverCrashesOnArbitraryBytes) {
    PacketDecoder decoder(128);
    uint32_t state = 12345;
    size_t events = 0;
    for (int round = 0; round < 2000; ++round) {
        std::string chunk;
        for (int i = 0; i < 64; ++i) {
            state = state * 1103515245 + 12345;
            // Bias towards the framing characters so the decoder's states are all visited.
            static constexpr char kInteresting[] = "$#}*+-%\x03"
                                                   "0a";
            uint8_t byte = static_cast<uint8_t>(state >> 16);
            chunk.push_back(byte % 3 == 0 ? static_cast<char>(byte) : kInteresting[byte % 10]);
        }
        events += decoder.feed(chunk).size();
    }
    EXPECT_GT(events, 0u);
    EXPECT_EQ(decoder.feed("#00" + encode_packet("OK")).back(), packet("OK"));
}

} // namespace
} // namespace hermit::gdbserver
