#include "tracer/virt/GuestPathLookup.h"

#include <fcntl.h>
#include <linux/capability.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace hermit::tracer::virt {
namespace {

bool dac_override_effective() {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2]{};
    return syscall(SYS_capget, &header, data) == 0 && (data[0].effective & (1U << CAP_DAC_OVERRIDE)) != 0;
}

// Opening for reading a file whose mode grants nobody anything: only CAP_DAC_OVERRIDE lets it through.
bool can_open_unreadable(const std::string& path) {
    const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        close(fd);
    }
    return fd >= 0;
}

class GuestPathLookupTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!dac_override_effective()) {
            GTEST_SKIP()
                << "needs CAP_DAC_OVERRIDE (run as root) to see hermit's capabilities go and come back";
        }
        char pattern[] = "/tmp/hermit-lookup-XXXXXX";
        const int fd = mkstemp(pattern);
        ASSERT_GE(fd, 0);
        close(fd);
        path_ = pattern;
        ASSERT_EQ(chmod(path_.c_str(), 0), 0);
    }
    void TearDown() override {
        if (!path_.empty()) {
            unlink(path_.c_str());
        }
    }
    std::string path_;
};

TEST_F(GuestPathLookupTest, AsGuestGoesWithoutThePermissionOverrideUntilItsScopeEnds) {
    ASSERT_TRUE(can_open_unreadable(path_));
    {
        const GuestPathLookup::AsGuest guest;
        EXPECT_TRUE(guest.holds());
        EXPECT_FALSE(dac_override_effective());
        EXPECT_FALSE(can_open_unreadable(path_));
    }
    EXPECT_TRUE(dac_override_effective());
    EXPECT_TRUE(can_open_unreadable(path_));
}

TEST_F(GuestPathLookupTest, OnlyTheOutermostAsGuestScopeGivesTheCapabilitiesBack) {
    {
        const GuestPathLookup::AsGuest outer;
        {
            const GuestPathLookup::AsGuest inner;
            EXPECT_TRUE(inner.holds());
        }
        EXPECT_TRUE(outer.holds());
        EXPECT_FALSE(dac_override_effective());
        EXPECT_FALSE(can_open_unreadable(path_));
    }
    EXPECT_TRUE(dac_override_effective());
}

} // namespace
} // namespace hermit::tracer::virt
