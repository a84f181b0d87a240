// Tests of the protocol's value encodings: hex, thread ids, signal and File-I/O numbers, and the amd64
// register layout with the target description generated from it.
#include "gdbserver/Amd64Registers.h"
#include "gdbserver/Amd64TargetDescription.h"
#include "gdbserver/GdbProtocolNumbers.h"
#include "gdbserver/Hex.h"
#include "gdbserver/ThreadId.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fcntl.h>

#include <cerrno>
#include <csignal>

namespace hermit::gdbserver {
namespace {

TEST(Hex, EncodesAndDecodesBytes) {
    EXPECT_EQ(hex_encode(std::string_view("\x00\xff\x10", 3)), "00ff10");
    EXPECT_EQ(hex_decode("00fF10"), (std::vector<uint8_t>{0x00, 0xff, 0x10}));
    EXPECT_FALSE(hex_decode("abc"));
    EXPECT_FALSE(hex_decode("zz"));
}

TEST(Hex, ParsesNumbers) {
    EXPECT_EQ(parse_hex_number("1000"), 0x1000u);
    EXPECT_EQ(parse_hex_number("ffffffffffffffff"), UINT64_MAX);
    EXPECT_EQ(parse_hex_number("00000000000000000001"), 1u);
    EXPECT_FALSE(parse_hex_number("1ffffffffffffffff"));
    EXPECT_FALSE(parse_hex_number(""));
    EXPECT_FALSE(parse_hex_number("12g"));
    EXPECT_EQ(format_hex_number(0), "0");
    EXPECT_EQ(format_hex_number(0xabc), "abc");
}

TEST(ThreadIdSyntax, ParsesAllForms) {
    EXPECT_EQ(parse_thread_id("p1.2"), (ThreadId{1, 2}));
    EXPECT_EQ(parse_thread_id("p1f.a"), (ThreadId{0x1f, 0xa}));
    EXPECT_EQ(parse_thread_id("p-1.-1"), (ThreadId{ThreadId::kAll, ThreadId::kAll}));
    EXPECT_EQ(parse_thread_id("p7"), (ThreadId{7, ThreadId::kAll}));
    EXPECT_EQ(parse_thread_id("0"), (ThreadId{ThreadId::kAny, ThreadId::kAny}));
    EXPECT_EQ(parse_thread_id("-1"), (ThreadId{ThreadId::kAny, ThreadId::kAll}));
    EXPECT_EQ(parse_thread_id("2a"), (ThreadId{ThreadId::kAny, 0x2a}));
    EXPECT_FALSE(parse_thread_id("p"));
    EXPECT_FALSE(parse_thread_id("p1."));
    EXPECT_FALSE(parse_thread_id("x"));
    EXPECT_FALSE(parse_thread_id(""));
}

TEST(ThreadIdSyntax, PatternsMatch) {
    ThreadId thread{1, 2};
    EXPECT_TRUE((ThreadId{ThreadId::kAll, ThreadId::kAll}).matches(thread));
    EXPECT_TRUE((ThreadId{1, ThreadId::kAny}).matches(thread));
    EXPECT_TRUE((ThreadId{ThreadId::kAny, 2}).matches(thread));
    EXPECT_FALSE((ThreadId{1, 3}).matches(thread));
    EXPECT_FALSE((ThreadId{2, ThreadId::kAll}).matches(thread));
}

TEST(ThreadIdSyntax, Formats) {
    EXPECT_EQ(format_thread_id({1, 0x1a}, true), "p1.1a");
    EXPECT_EQ(format_thread_id({1, 0x1a}, false), "1a");
}

TEST(ProtocolNumbers, TranslatesSignalsBothWays) {
    EXPECT_EQ(gdb_signal_from_host(SIGTRAP), 5);
    EXPECT_EQ(gdb_signal_from_host(SIGINT), 2);
    EXPECT_EQ(gdb_signal_from_host(SIGSEGV), 11);
    EXPECT_EQ(gdb_signal_from_host(SIGBUS), 10);
    EXPECT_EQ(gdb_signal_from_host(SIGUSR1), 30);
    EXPECT_EQ(gdb_signal_from_host(SIGCHLD), 20);
    EXPECT_EQ(gdb_signal_from_host(SIGSTOP), 17);
    EXPECT_EQ(gdb_signal_from_host(0), 0);
    for (int host = 1; host <= 63; ++host) {
        if (host == SIGSTKFLT) {
            continue;
        }
        EXPECT_EQ(host_signal_from_gdb(gdb_signal_from_host(host)), host) << host;
    }
    EXPECT_EQ(host_signal_from_gdb(143), 0);
}

TEST(ProtocolNumbers, TranslatesFileIoValues) {
    EXPECT_EQ(host_open_flags_from_gdb(0), O_RDONLY);
    EXPECT_EQ(host_open_flags_from_gdb(0x1 | 0x200 | 0x400), O_WRONLY | O_CREAT | O_TRUNC);
    EXPECT_EQ(gdb_errno_from_host(ENOENT), 2);
    EXPECT_EQ(gdb_errno_from_host(ENAMETOOLONG), 91);
    EXPECT_EQ(gdb_errno_from_host(ELOOP), 9999);
}

TEST(Amd64Layout, MatchesGdbOrderAndSizes) {
    EXPECT_EQ(amd64::registers()[amd64::kRip].offset, 128u);
    EXPECT_EQ(amd64::registers()[amd64::kEflags].size, 4u);
    EXPECT_EQ(amd64::registers()[amd64::kSt0].offset, 164u);
    EXPECT_EQ(amd64::registers()[amd64::kXmm0].offset, 276u);
    EXPECT_EQ(amd64::registers()[amd64::kMxcsr].offset, 532u);
    EXPECT_EQ(amd64::registers()[amd64::kOrigRax].offset, 536u);
    EXPECT_EQ(amd64::registers()[amd64::kGsBase].name, "gs_base");
    EXPECT_EQ(amd64::register_file_size(), 560u);
    EXPECT_FALSE(amd64::register_info(amd64::kRegisterCount));
    EXPECT_FALSE(amd64::register_info(-1));
}

TEST(Amd64Layout, TargetDescriptionNamesEveryRegisterWithItsNumber) {
    const std::string& xml = amd64::target_description_xml();
    EXPECT_NE(xml.find("<architecture>i386:x86-64</architecture>"), std::string::npos);
    EXPECT_NE(xml.find(R"(<feature name="org.gnu.gdb.i386.linux">)"), std::string::npos);
    for (int regno = 0; regno < amd64::kRegisterCount; ++regno) {
        const auto& info = amd64::registers()[static_cast<size_t>(regno)];
        std::string expected = fmt::format(R"(<reg name="{}" bitsize="{}")", info.name, info.size * 8);
        size_t at = xml.find(expected);
        ASSERT_NE(at, std::string::npos) << info.name;
        EXPECT_NE(xml.find(fmt::format(R"(regnum="{}")", regno), at), std::string::npos) << info.name;
    }
}

} // namespace
} // namespace hermit::gdbserver
