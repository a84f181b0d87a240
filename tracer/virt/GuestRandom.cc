#include "GuestRandom.h"

#include <cstring>

namespace hermit::tracer::virt {
namespace {

constexpr uint64_t rotate_left(uint64_t value, int bits) {
    return (value << bits) | (value >> (64 - bits));
}

} // namespace

uint64_t splitmix64_next(uint64_t& state) {
    state += 0x9e3779b97f4a7c15ULL;
    uint64_t mixed = state;
    mixed = (mixed ^ (mixed >> 30)) * 0xbf58476d1ce4e5b9ULL;
    mixed = (mixed ^ (mixed >> 27)) * 0x94d049bb133111ebULL;
    return mixed ^ (mixed >> 31);
}

GuestRandom::GuestRandom(uint64_t seed, Stream stream) {
    uint64_t seeder = seed ^ (static_cast<uint64_t>(stream) * 0x9e3779b97f4a7c15ULL);
    for (uint64_t& word : state_) {
        word = splitmix64_next(seeder);
    }
}

uint64_t GuestRandom::next() {
    const uint64_t result = rotate_left(state_[1] * 5, 7) * 9;
    const uint64_t shifted = state_[1] << 17;
    state_[2] ^= state_[0];
    state_[3] ^= state_[1];
    state_[1] ^= state_[2];
    state_[0] ^= state_[3];
    state_[2] ^= shifted;
    state_[3] = rotate_left(state_[3], 45);
    return result;
}

void GuestRandom::fill(void* buffer, size_t length) {
    auto* bytes = static_cast<uint8_t*>(buffer);
    while (length > 0) {
        const uint64_t value = next();
        const size_t chunk = length < sizeof value ? length : sizeof value;
        std::memcpy(bytes, &value, chunk);
        bytes += chunk;
        length -= chunk;
    }
}

} // namespace hermit::tracer::virt
