#include "tracer/virt/GuestRandom.h"

#include <gtest/gtest.h>

#include <array>

namespace hermit::tracer::virt {
namespace {

TEST(GuestRandomTest, SplitMix64MatchesItsReferenceOutput) {
    uint64_t state = 0;
    EXPECT_EQ(splitmix64_next(state), 0xe220a8397b1dcdafULL);
}

TEST(GuestRandomTest, FixedSeedGivesKnownOutputs) {
    // Computed with an independent implementation of SplitMix64 + xoshiro256**.
    GuestRandom zero(0, GuestRandom::Stream::GuestData);
    EXPECT_EQ(zero.next(), 0x422ea740d0977210ULL);
    EXPECT_EQ(zero.next(), 0xe062b061b42e2928ULL);
    EXPECT_EQ(zero.next(), 0x5a071fc5930841b6ULL);
    GuestRandom one(1, GuestRandom::Stream::GuestData);
    EXPECT_EQ(one.next(), 0x3752bdaf106afaecULL);
}

TEST(GuestRandomTest, DifferentSeedsAndStreamsDiffer) {
    GuestRandom a(1, GuestRandom::Stream::GuestData);
    GuestRandom b(2, GuestRandom::Stream::GuestData);
    GuestRandom c(1, GuestRandom::Stream::Scheduler);
    const uint64_t first = a.next();
    EXPECT_NE(first, b.next());
    EXPECT_NE(first, c.next());
}

TEST(GuestRandomTest, FillIsTheLittleEndianOutputStream) {
    GuestRandom words(7, GuestRandom::Stream::GuestData);
    GuestRandom bytes(7, GuestRandom::Stream::GuestData);
    std::array<uint8_t, 11> filled{};
    bytes.fill(filled.data(), filled.size());
    const uint64_t first = words.next();
    const uint64_t second = words.next();
    for (int index = 0; index < 8; ++index) {
        EXPECT_EQ(filled[index], static_cast<uint8_t>(first >> (8 * index)));
    }
    for (int index = 0; index < 3; ++index) {
        EXPECT_EQ(filled[8 + index], static_cast<uint8_t>(second >> (8 * index)));
    }
}

} // namespace
} // namespace hermit::tracer::virt
