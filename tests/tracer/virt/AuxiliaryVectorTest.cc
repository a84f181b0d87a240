#include "tracer/virt/AuxiliaryVector.h"

#include <gtest/gtest.h>

#include <elf.h>
#include <sys/auxv.h>
#include <unistd.h>

namespace hermit::tracer::virt {
namespace {

TEST(AuxiliaryVectorTest, ReadsTheRealAuxvOfAProcess) {
    const auto auxv = AuxiliaryVector::of_process(getpid());
    ASSERT_TRUE(auxv.value(AT_RANDOM));
    EXPECT_EQ(*auxv.value(AT_RANDOM), getauxval(AT_RANDOM));
    EXPECT_EQ(*auxv.value(AT_PAGESZ), static_cast<uint64_t>(sysconf(_SC_PAGESIZE)));
    EXPECT_FALSE(auxv.value(0xdead));
}

TEST(AuxiliaryVectorTest, StopsAtTheTerminator) {
    const uint64_t raw[] = {AT_PAGESZ, 4096, AT_NULL, 0, AT_RANDOM, 1234};
    const auto auxv = AuxiliaryVector::parse(std::span(reinterpret_cast<const uint8_t*>(raw), sizeof raw));
    EXPECT_EQ(*auxv.value(AT_PAGESZ), 4096u);
    EXPECT_FALSE(auxv.value(AT_RANDOM));
}

} // namespace
} // namespace hermit::tracer::virt
