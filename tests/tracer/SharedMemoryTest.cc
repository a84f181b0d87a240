// SharedMemory maps a memfd that a guest maps too, and only one that cannot shrink under the mapping: an
// access past the end of a file cut short would kill hermit with SIGBUS.
#include "tracer/SharedMemory.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>

namespace hermit::tracer {
namespace {

constexpr size_t kLength = 65536;

UniqueFd memfd(size_t size, unsigned seals) {
    UniqueFd file(memfd_create("shared-memory-test", MFD_CLOEXEC | MFD_ALLOW_SEALING));
    EXPECT_GE(file.get(), 0);
    EXPECT_EQ(ftruncate(file.get(), static_cast<off_t>(size)), 0);
    if (seals != 0) {
        EXPECT_EQ(fcntl(file.get(), F_ADD_SEALS, seals), 0);
    }
    return file;
}

TEST(SharedMemory, MapsASealedMemfdThatBothSidesSee) {
    const UniqueFd file = memfd(kLength, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    const SharedMemory memory = SharedMemory::map(file, kLength);
    ASSERT_FALSE(memory.empty());
    ASSERT_EQ(memory.bytes().size(), kLength);
    std::memcpy(memory.bytes().data() + 100, "hermit", 6);
    char read_back[6] = {};
    ASSERT_EQ(pread(file.get(), read_back, sizeof read_back, 100), 6);
    EXPECT_EQ(std::memcmp(read_back, "hermit", 6), 0);
    ASSERT_EQ(pwrite(file.get(), "guest", 5, kLength - 5), 5);
    EXPECT_EQ(std::memcmp(memory.bytes().data() + kLength - 5, "guest", 5), 0);
}

TEST(SharedMemory, RefusesAMemfdThatCouldShrink) {
    EXPECT_TRUE(SharedMemory::map(memfd(kLength, 0), kLength).empty());
    EXPECT_TRUE(SharedMemory::map(memfd(kLength, F_SEAL_GROW), kLength).empty());
}

TEST(SharedMemory, RefusesAFileShorterThanTheMapping) {
    EXPECT_TRUE(SharedMemory::map(memfd(kLength / 2, F_SEAL_SHRINK), kLength).empty());
}

TEST(SharedMemory, RefusesWhatIsNoMemfd) {
    char path[] = "/tmp/shared-memory-test-XXXXXX";
    const UniqueFd file(mkstemp(path));
    ASSERT_GE(file.get(), 0);
    std::remove(path);
    ASSERT_EQ(ftruncate(file.get(), kLength), 0);
    EXPECT_TRUE(SharedMemory::map(file, kLength).empty());
    EXPECT_TRUE(SharedMemory::map(UniqueFd{}, kLength).empty());
}

TEST(SharedMemory, MovesItsMappingAlong) {
    const UniqueFd file = memfd(kLength, F_SEAL_SHRINK);
    SharedMemory first = SharedMemory::map(file, kLength);
    uint8_t* const address = first.bytes().data();
    SharedMemory second = std::move(first);
    EXPECT_TRUE(first.empty()); // NOLINT(bugprone-use-after-move): moved from is empty
    EXPECT_EQ(second.bytes().data(), address);
    second = SharedMemory{};
    EXPECT_TRUE(second.empty());
}

} // namespace
} // namespace hermit::tracer
