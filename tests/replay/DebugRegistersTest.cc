#include "replay/DebugRegisters.h"

#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cerrno>

namespace hermit::replay {
namespace {

TEST(DebugRegisters, Dr7EnablesTheSlotWithItsAccessAndLength) {
    // Slot 0, writes (R/W 01), 4 bytes (LEN 11): local enable bit 0, field 1101 at bit 16.
    EXPECT_EQ(dr7_enable_bits(0, true, 4), 0xd0001UL);
    // Slot 1, reads and writes (11), 8 bytes (10): local enable bit 2, field 1011 at bit 20.
    EXPECT_EQ(dr7_enable_bits(1, false, 8), 0xb00004UL);
    // Slot 3, writes, 1 byte (00): local enable bit 6, field 0001 at bit 28.
    EXPECT_EQ(dr7_enable_bits(3, true, 1), 0x10000040UL);
    // Slot 2, writes, 2 bytes (01): local enable bit 4, field 0101 at bit 24.
    EXPECT_EQ(dr7_enable_bits(2, true, 2), 0x5000010UL);
}

TEST(DebugRegisters, ProbeLeavesNoChildBehindAndKeepsItsAnswer) {
    const bool delivered = host_delivers_watchpoint_traps();
    EXPECT_EQ(waitpid(-1, nullptr, WNOHANG), -1);
    EXPECT_EQ(errno, ECHILD);
    EXPECT_EQ(host_delivers_watchpoint_traps(), delivered);
}

} // namespace
} // namespace hermit::replay
