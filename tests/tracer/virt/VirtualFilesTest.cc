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

TEST(VirtualFilesTest, UrandomIsSeededFreshPerOpenAndReproducible) {
    VirtualClock clock;
    GuestRandom random_a(5, GuestRandom::Stream::GuestData);
    GuestRandom random_b(5, GuestRandom::Stream::GuestData);
    VirtualFiles files_a(random_a, clock);
    VirtualFiles files_b(random_b, clock);
    const auto first = files_a.replacement("/dev/urandom");
    ASSERT_TRUE(first);
    EXPECT_TRUE(first->remove_after_open);
    const std::string first_bytes = contents(first->host_path);
    EXPECT_EQ(first_bytes.size(), VirtualFiles::kRandomFileSize);
    EXPECT_NE(contents(files_a.replacement("/dev/random")->host_path).substr(0, 64),
              first_bytes.substr(0, 64));
    EXPECT_EQ(contents(files_b.replacement("/dev/urandom")->host_path), first_bytes);
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
