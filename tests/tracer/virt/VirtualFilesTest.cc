#include "tracer/virt/VirtualFiles.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>

namespace hermit::tracer::virt {
namespace {

std::string contents(const std::string& path) {
    std::ifstream file(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(file), std::istreambuf_iterator<char>()};
}

// Two VirtualFiles with the same seed, to check that what one serves the other serves too.
class SameSeedVirtualFiles : public ::testing::Test {
protected:
    VirtualClock clock;
    GuestRandom random_a{5, GuestRandom::Stream::GuestData};
    GuestRandom random_b{5, GuestRandom::Stream::GuestData};
    VirtualFiles files_a{random_a, clock};
    VirtualFiles files_b{random_b, clock};
};

TEST_F(SameSeedVirtualFiles, UrandomOpensGetFreshWindowsThatAreReproducible) {
    const auto first = files_a.replacement("/dev/urandom");
    ASSERT_TRUE(first);
    EXPECT_FALSE(first->remove_after_open);
    EXPECT_EQ(first->start_offset, 0u);
    const auto second = files_a.replacement("/dev/random");
    EXPECT_EQ(second->host_path, first->host_path);
    EXPECT_EQ(second->start_offset, VirtualFiles::kRandomWindow);
    // Each open can read kRandomReadable bytes from its start, and its first bytes are new.
    const std::string bytes = contents(first->host_path);
    EXPECT_EQ(bytes.size(), second->start_offset + VirtualFiles::kRandomReadable);
    EXPECT_NE(bytes.substr(0, 64), bytes.substr(second->start_offset, 64));
    EXPECT_EQ(
        contents(files_b.replacement("/dev/urandom")->host_path).substr(0, VirtualFiles::kRandomReadable),
        bytes.substr(0, VirtualFiles::kRandomReadable));
}

TEST_F(SameSeedVirtualFiles, TheMountedRandomDeviceGetsAFreshWindowPerOpenReproducibly) {
    const std::string device = files_a.random_device().string();
    EXPECT_EQ(contents(device), "") << "filled at the first open, not before";

    files_a.refresh_random_device();
    const std::string first = contents(device);
    ASSERT_EQ(first.size(), VirtualFiles::kRandomReadable);
    files_a.refresh_random_device();
    const std::string second = contents(device);
    ASSERT_EQ(second.size(), VirtualFiles::kRandomReadable);
    EXPECT_NE(second.substr(0, VirtualFiles::kRandomWindow), first.substr(0, VirtualFiles::kRandomWindow));
    EXPECT_EQ(second.substr(VirtualFiles::kRandomWindow), first.substr(VirtualFiles::kRandomWindow));

    files_b.refresh_random_device();
    files_b.refresh_random_device();
    EXPECT_EQ(contents(files_b.random_device().string()), second) << "the same seed, the same bytes";
}

TEST(VirtualFilesTest, AFullRandomFileIsReplacedAndRemoved) {
    VirtualClock clock;
    GuestRandom random(5, GuestRandom::Stream::GuestData);
    VirtualFiles files(random, clock);
    const std::string first_path = files.replacement("/dev/urandom")->host_path;
    for (uint64_t open = 1; open < VirtualFiles::kWindowsPerRandomFile; ++open) {
        ASSERT_EQ(files.replacement("/dev/urandom")->host_path, first_path);
    }
    EXPECT_EQ(std::filesystem::file_size(first_path),
              (VirtualFiles::kWindowsPerRandomFile - 1) * VirtualFiles::kRandomWindow +
                  VirtualFiles::kRandomReadable);
    const auto next = files.replacement("/dev/urandom");
    EXPECT_NE(next->host_path, first_path);
    EXPECT_EQ(next->start_offset, 0u);
    EXPECT_FALSE(std::filesystem::exists(first_path));
}

TEST(VirtualFilesTest, DescribesTheVirtualMachine) {
    VirtualClock clock;
    GuestRandom random(1, GuestRandom::Stream::GuestData);
    std::filesystem::path directory;
    {
        VirtualFiles files(random, clock);
        const std::string cpuinfo = contents(files.replacement("/proc/cpuinfo")->host_path);
        EXPECT_NE(cpuinfo.find("processor\t: 1\n"), std::string::npos);
        EXPECT_EQ(cpuinfo.find("processor\t: 2\n"), std::string::npos);
        EXPECT_NE(cpuinfo.find("hermit virtual CPU"), std::string::npos);
        EXPECT_EQ(contents(files.replacement("/sys/devices/system/cpu/online")->host_path), "0-1\n");
        EXPECT_EQ(contents(files.replacement("/proc/uptime")->host_path), "1000.00 1000.00\n");
        const auto boot_id = files.replacement("/proc/sys/kernel/random/boot_id");
        EXPECT_EQ(contents(boot_id->host_path).size(), 37u);
        EXPECT_FALSE(files.replacement("/etc/passwd"));
        directory = std::filesystem::path(boot_id->host_path).parent_path();
        EXPECT_TRUE(std::filesystem::exists(directory));
    }
    EXPECT_FALSE(std::filesystem::exists(directory)) << "the temporary directory outlived VirtualFiles";
}

} // namespace
} // namespace hermit::tracer::virt
