#pragma once
// GuestRandom: a seeded pseudo-random stream. The same (seed, stream) always yields the same bytes, and
// different streams of one seed are independent, so the guest's data (getrandom, /dev/urandom, AT_RANDOM)
// never shifts when the scheduler or chaos mode draws more or fewer numbers.
//
// Algorithm: xoshiro256** (Blackman and Vigna, 2018), a 256-bit-state generator with period 2^256 - 1.
// Its state is seeded with four outputs of SplitMix64 (Steele, Lea and Flood) started at
// seed ^ (stream * 0x9e3779b97f4a7c15), as the xoshiro authors recommend. Not cryptographically secure:
// the point is reproducibility, and the guest's "secrets" are known to anyone who knows the seed.

#include <cstddef>
#include <cstdint>

namespace hermit::tracer::virt {

// One step of SplitMix64: advances `state` and returns the next output.
uint64_t splitmix64_next(uint64_t& state);

class GuestRandom {
public:
    enum class Stream : uint64_t { GuestData = 1, Scheduler = 2, Chaos = 3 };

    GuestRandom(uint64_t seed, Stream stream);

    uint64_t next();
    // Fills `length` bytes with the next outputs, little-endian, eight bytes per output.
    void fill(void* buffer, size_t length);

private:
    uint64_t state_[4];
};

} // namespace hermit::tracer::virt
