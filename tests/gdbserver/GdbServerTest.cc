// GdbServer request handling against InMemoryTarget over a real loopback TCP connection, with
// hand-written packets.
#include "ServerHarness.h"
#include "gdbserver/Amd64Registers.h"
#include "gdbserver/Amd64TargetDescription.h"
#include "gdbserver/Hex.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <unistd.h>

#include <fstream>

namespace hermit::gdbserver::testing {
namespace {

using Capabilities = InMemoryTarget::Capabilities;

Capabilities all_capabilities() {
    return {.breakpoints = true,
            .watchpoints = true,
            .reverse = true,
            .auxv = true,
            .exec_file = true,
            .host_io = true,
            .monitor = true,
            .processes = true,
            .libraries = true};
}

std::string le64(uint64_t value) {
    return hex_encode(&value, 8);
}

TEST(GdbServer, BaseTargetAdvertisesOnlyCoreFeatures) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    std::string reply = gdb.request("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+");
    EXPECT_NE(reply.find("PacketSize=4000"), std::string::npos);
    EXPECT_NE(reply.find("QStartNoAckMode+"), std::string::npos);
    EXPECT_NE(reply.find("qXfer:features:read+"), std::string::npos);
    for (std::string_view absent : {"Reverse", "multiprocess", "auxv", "exec-file", "libraries", "swbreak"}) {
        EXPECT_EQ(reply.find(absent), std::string::npos) << absent;
    }
    // The packets of absent capabilities get the empty reply.
    EXPECT_EQ(gdb.request("bc"), "");
    EXPECT_EQ(gdb.request("bs"), "");
    EXPECT_EQ(gdb.request("Z0,1000,1"), "");
    EXPECT_EQ(gdb.request("Z2,1000,4"), "");
    EXPECT_EQ(gdb.request("qXfer:auxv:read::0,100"), "");
    EXPECT_EQ(gdb.request("qRcmd,6869"), "");
    EXPECT_EQ(gdb.request("vFile:open:2f62696e2f7368,0,0"), "");
    EXPECT_EQ(gdb.request("qAttached"), "");
    EXPECT_EQ(gdb.request("vMustReplyEmpty"), "");
    EXPECT_EQ(gdb.request("qfThreadInfo"), "m1,2");
    EXPECT_EQ(gdb.request("?"), "T05thread:1;");
}

TEST(GdbServer, FullTargetAdvertisesEveryCapability) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    std::string reply = gdb.request("qSupported:multiprocess+;swbreak+;hwbreak+;vContSupported+");
    for (std::string_view feature :
         {"qXfer:auxv:read+", "qXfer:exec-file:read+", "ReverseContinue+", "ReverseStep+", "multiprocess+",
          "qXfer:libraries-svr4:read+", "swbreak+", "hwbreak+", "vContSupported+"}) {
        EXPECT_NE(reply.find(feature), std::string::npos) << feature;
    }
    EXPECT_EQ(gdb.request("qfThreadInfo"), "mp1.1,p1.2");
    EXPECT_EQ(gdb.request("qsThreadInfo"), "l");
    EXPECT_EQ(gdb.request("qC"), "QCp1.1");
    EXPECT_EQ(gdb.request("qAttached:1"), "0");
    EXPECT_EQ(gdb.request("qThreadExtraInfo,p1.2"), hex_encode("worker"));
    EXPECT_EQ(gdb.request("qSymbol::"), "OK");
    EXPECT_EQ(gdb.request("QThreadEvents:1"), "OK");
    EXPECT_EQ(gdb.request("qOffsets"), "");
}

TEST(GdbServer, ReadsAndWritesRegistersOfTheSelectedThread) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.request("qSupported:multiprocess+");
    std::string registers = gdb.request("g");
    ASSERT_EQ(registers.size(), amd64::register_file_size() * 2);
    EXPECT_EQ(registers.substr(amd64::registers()[amd64::kRip].offset * 2, 16), le64(0x1010));

    EXPECT_EQ(gdb.request("Hgp1.2"), "OK");
    EXPECT_EQ(gdb.request("p10"), le64(0x1020));
    EXPECT_EQ(gdb.request("P10=" + le64(0x1234)), "OK");
    EXPECT_EQ(target.get_register(2, amd64::kRip), 0x1234u);
    EXPECT_EQ(target.get_register(1, amd64::kRip), 0x1010u);
    EXPECT_EQ(gdb.request("p11"), "00000000");
    EXPECT_EQ(gdb.request("p99"), "E16");

    std::string changed = gdb.request("g");
    changed.replace(0, 16, le64(42));
    EXPECT_EQ(gdb.request("G" + changed), "OK");
    EXPECT_EQ(target.get_register(2, amd64::kRax), 42u);
    EXPECT_EQ(gdb.request("Gabc"), "E16");

    EXPECT_EQ(gdb.request("Hgp1.9"), "E01");
    EXPECT_EQ(gdb.request("Tp1.2"), "OK");
    EXPECT_EQ(gdb.request("Tp1.9"), "E01");
}

TEST(GdbServer, ReadsAndWritesMemory) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    EXPECT_EQ(gdb.request("m1000,4"), hex_encode(target.memory(), 4));
    EXPECT_EQ(gdb.request("m10,4"), "E0e");
    // A read running off the end of memory returns what exists.
    EXPECT_EQ(gdb.request("m1ffe,10").size(), 4u);
    EXPECT_EQ(gdb.request("M1000,3:aabbcc"), "OK");
    EXPECT_EQ(gdb.request("m1000,3"), "aabbcc");
    EXPECT_EQ(gdb.request("M1000,3:aabb"), "E16");
    EXPECT_EQ(gdb.request("M10,1:00"), "E0e");
    // X carries escaped binary: '#' '$' '}' '*' travel as '}' + (byte ^ 0x20).
    EXPECT_EQ(gdb.request("X1004,0:"), "OK");
    EXPECT_EQ(gdb.request("X1004,5:" + escape_binary(std::string("#$}*\0", 5))), "OK");
    EXPECT_EQ(gdb.request("m1004,5"), "23247d2a00");
    EXPECT_EQ(gdb.request("mzz,4"), "E16");
}

TEST(GdbServer, ContinuesToBreakpointAndReportsSwbreak) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.request("qSupported:multiprocess+;swbreak+");
    EXPECT_EQ(gdb.request("vCont?"), "vCont;c;C;s;S");
    EXPECT_EQ(gdb.request("Z0,1015,1"), "OK");
    EXPECT_EQ(gdb.request("vCont;c:p1.1"), "T05thread:p1.1;swbreak:;");
    EXPECT_EQ(target.get_register(1, amd64::kRip), 0x1015u);
    EXPECT_EQ(gdb.request("z0,1015,1"), "OK");
    EXPECT_EQ(gdb.request("z0,1015,1"), "E02");
    EXPECT_TRUE(target.breakpoint_addresses().empty());

    EXPECT_EQ(gdb.request("vCont;s:p1.2;c"), "T05thread:p1.2;");
    EXPECT_EQ(target.get_register(2, amd64::kRip), 0x1021u);
    // The stop selects the stopped thread for register requests.
    EXPECT_EQ(gdb.request("p10"), le64(0x1021));
    EXPECT_EQ(gdb.request("vCont;x"), "E16");
    EXPECT_EQ(gdb.request("vCont;"), "E16");
}

TEST(GdbServer, ReportsWatchpointsAndExit) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.request("qSupported:multiprocess+");
    EXPECT_EQ(gdb.request("Z3,1018,4"), "OK");
    EXPECT_EQ(gdb.request("c"), "T05thread:p1.1;rwatch:1018;");
    EXPECT_EQ(gdb.request("z3,1018,4"), "OK");
    target.set_exit_address(0x1100);
    EXPECT_EQ(gdb.request("c"), "W89;process:1");
}

TEST(GdbServer, LegacyStepAndSignalDelivery) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    EXPECT_EQ(gdb.request("Hc2"), "OK");
    EXPECT_EQ(gdb.request("s"), "T05thread:2;");
    EXPECT_EQ(target.get_register(2, amd64::kRip), 0x1021u);
    // gdb signal 30 is SIGUSR1, which is 10 on Linux.
    EXPECT_EQ(gdb.request("S1e"), "T05thread:2;");
    ASSERT_EQ(target.resumes().size(), 2u);
    EXPECT_EQ(target.resumes()[1].actions.at(0).signal, SIGUSR1);
    EXPECT_EQ(gdb.request("Cxyz"), "E16");
}

TEST(GdbServer, InterruptStopsARunningTarget) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.send_raw(encode_packet("vCont;c"));
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Ack);
    gdb.send_raw("\x03");
    EXPECT_EQ(gdb.read_reply(), "T02thread:1;");
    EXPECT_EQ(gdb.request("g").size(), amd64::register_file_size() * 2);
}

TEST(GdbServer, DisconnectWhileRunningStopsTheTargetAndEndsTheSession) {
    InMemoryTarget target({});
    ServerHarness server(target);
    {
        RawClient gdb(server.port());
        gdb.send_raw(encode_packet("vCont;c"));
        EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Ack);
    }
    EXPECT_EQ(server.join(), GdbServer::Outcome::Disconnected);
    EXPECT_EQ(target.resumes().size(), 1u);
}

TEST(GdbServer, ReverseExecutionReachesTheStartOfHistory) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.request("qSupported:multiprocess+;swbreak+");
    EXPECT_EQ(gdb.request("bs"), "T05thread:p1.1;");
    EXPECT_EQ(target.get_register(1, amd64::kRip), 0x100fu);
    EXPECT_EQ(gdb.request("Z0,1004,1"), "OK");
    EXPECT_EQ(gdb.request("bc"), "T05thread:p1.1;swbreak:;");
    EXPECT_EQ(target.get_register(1, amd64::kRip), 0x1004u);
    EXPECT_EQ(gdb.request("bc"), "T05thread:p1.1;replaylog:begin;");
    EXPECT_EQ(target.get_register(1, amd64::kRip), 0x1000u);
}

TEST(GdbServer, TransfersDocumentsInChunks) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    std::string xml;
    for (uint64_t offset = 0;;) {
        std::string chunk = gdb.request(fmt::format("qXfer:features:read:target.xml:{:x},100", offset));
        ASSERT_FALSE(chunk.empty());
        xml += chunk.substr(1);
        offset += chunk.size() - 1;
        if (chunk.front() == 'l') {
            break;
        }
        ASSERT_EQ(chunk.front(), 'm');
        ASSERT_EQ(chunk.size(), 0x101u);
    }
    EXPECT_EQ(xml, amd64::target_description_xml());
    EXPECT_EQ(gdb.request("qXfer:features:read:target.xml:ffff,100"), "l");
    EXPECT_EQ(gdb.request("qXfer:features:read:other.xml:0,100"), "E00");
    EXPECT_EQ(gdb.request("qXfer:features:read:target.xml:0"), "E16");

    std::string auxv = gdb.request("qXfer:auxv:read::0,1000");
    EXPECT_EQ(auxv.size(), 33u);
    EXPECT_EQ(auxv.substr(0, 2), std::string("l\x06", 2));
    EXPECT_EQ(gdb.request("qXfer:exec-file:read:1:0,1000"), "l/bin/true");
    EXPECT_EQ(gdb.request("qXfer:exec-file:write:1:0,1000"), "");
    EXPECT_EQ(gdb.request("qXfer:libraries-svr4:read::0,1000"), R"(l<library-list-svr4 version="1.0"/>)");
    EXPECT_EQ(gdb.request("qXfer:libraries-svr4:read::5,6"), "mary-li");
}

TEST(GdbServer, RunsMonitorCommandsWithConsoleOutput) {
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.send_raw(encode_packet("qRcmd," + hex_encode("when")));
    EXPECT_EQ(gdb.read_reply(), "O" + hex_encode("you said: when\n"));
    EXPECT_EQ(gdb.read_reply(), "OK");
    EXPECT_EQ(gdb.request("qRcmd,zz"), "E16");
}

TEST(GdbServer, ReadsHostFilesThroughVFile) {
    std::string path = ::testing::TempDir() + "gdbserver_vfile.bin";
    std::string content = std::string("#$}*ELF\0data", 12);
    std::ofstream(path, std::ios::binary) << content;
    InMemoryTarget target(all_capabilities());
    ServerHarness server(target);
    RawClient gdb(server.port());
    EXPECT_EQ(gdb.request("vFile:setfs:0"), "F0");
    std::string opened = gdb.request("vFile:open:" + hex_encode(path) + ",0,0");
    ASSERT_EQ(opened.front(), 'F');
    std::string fd = opened.substr(1);
    EXPECT_EQ(gdb.request("vFile:pread:" + fd + ",100,0"), "Fc;" + content);
    EXPECT_EQ(gdb.request("vFile:pread:" + fd + ",3,9"), "F3;ata");
    std::string stat = gdb.request("vFile:fstat:" + fd);
    ASSERT_EQ(stat.substr(0, 4), "F40;");
    // st_size is the big-endian 64-bit field at offset 28 of the protocol's struct stat.
    EXPECT_EQ(stat[4 + 28 + 7], '\x0c');
    EXPECT_EQ(gdb.request("vFile:close:" + fd), "F0");
    EXPECT_EQ(gdb.request("vFile:close:" + fd), "F-1,9");
    EXPECT_EQ(gdb.request("vFile:open:" + hex_encode("/nonexistent/file") + ",0,0"), "F-1,2");
    EXPECT_EQ(gdb.request("vFile:open:" + hex_encode(path) + ",201,1a4"), "F-1,d");
    EXPECT_EQ(gdb.request("vFile:readlink:2f"), "");
    unlink(path.c_str());
}

TEST(GdbServer, SurvivesGarbageBadChecksumsAndOversizePackets) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.send_raw("garbage\r\n\x01\x02\xff");
    gdb.send_raw("$g#00");
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Nack);
    gdb.send_raw("$g#zz");
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Nack);
    gdb.send_raw("$" + std::string(5 * kMaxPacketSize, 'm') + "#00");
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Nack);
    gdb.send_raw("$m10");
    gdb.send_raw(encode_packet(std::string("m1000,\0", 7)));
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Nack); // the truncated packet
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Ack);
    EXPECT_EQ(gdb.read_reply(), "E16");
    EXPECT_EQ(gdb.request("m1000,2"), hex_encode(target.memory(), 2));
    EXPECT_EQ(gdb.request(""), "");
    EXPECT_EQ(gdb.request("\x7f\x80unknown"), "");
}

TEST(GdbServer, ResendsTheLastReplyOnNack) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.send_raw(encode_packet("m1000,1"));
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Ack);
    std::string first = gdb.read_reply();
    gdb.send_raw("-");
    EXPECT_EQ(gdb.read_reply(), first);
}

TEST(GdbServer, NoAckModeStopsAcknowledgements) {
    InMemoryTarget target({});
    ServerHarness server(target);
    RawClient gdb(server.port());
    gdb.send_raw(encode_packet("QStartNoAckMode"));
    EXPECT_EQ(gdb.read_ack(), PacketEvent::Kind::Ack);
    EXPECT_EQ(gdb.read_reply(), "OK");
    gdb.disable_acks();
    size_t acks_before = gdb.acks_seen();
    EXPECT_EQ(gdb.request("m1000,1"), hex_encode(target.memory(), 1));
    // A corrupt packet is dropped silently: no '-' and no reply, so the next reply is the next request's.
    gdb.send_raw("$g#00");
    EXPECT_EQ(gdb.request("m1001,1"), hex_encode(target.memory() + 1, 1));
    EXPECT_EQ(gdb.acks_seen(), acks_before);
}

TEST(GdbServer, DetachAndKillEndTheSession) {
    {
        InMemoryTarget target({});
        ServerHarness server(target);
        RawClient gdb(server.port());
        EXPECT_EQ(gdb.request("D"), "OK");
        EXPECT_TRUE(gdb.closed_by_server());
        EXPECT_EQ(server.join(), GdbServer::Outcome::Detached);
        EXPECT_TRUE(target.detached());
    }
    {
        InMemoryTarget target({});
        ServerHarness server(target);
        RawClient gdb(server.port());
        gdb.send_raw(encode_packet("k"));
        EXPECT_EQ(server.join(), GdbServer::Outcome::Killed);
        EXPECT_TRUE(target.killed());
    }
    {
        InMemoryTarget target({});
        ServerHarness server(target);
        { RawClient gdb(server.port()); }
        EXPECT_EQ(server.join(), GdbServer::Outcome::Disconnected);
    }
}

TEST(Transport, ReportsBindFailureWithPortAndReason) {
    Listener first = Listener::listen_loopback(0);
    try {
        Listener::listen_loopback(first.port());
        FAIL() << "a second listener on the same port must fail";
    } catch (const TransportError& error) {
        EXPECT_EQ(error.port(), first.port());
        EXPECT_NE(error.reason().find("in use"), std::string::npos) << error.reason();
    }
}

} // namespace
} // namespace hermit::gdbserver::testing
