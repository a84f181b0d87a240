#include "tracer/virt/DirectoryListing.h"
#include "tracer/virt/StatRewriter.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hermit::tracer::virt {
namespace {

struct Entry {
    uint64_t inode;
    std::string name;
};

std::vector<Entry> entries_of(const std::vector<uint8_t>& buffer) {
    std::vector<Entry> entries;
    for (size_t offset = 0; offset < buffer.size();) {
        uint64_t inode;
        uint16_t length;
        std::memcpy(&inode, &buffer[offset], 8);
        std::memcpy(&length, &buffer[offset + 16], 2);
        entries.push_back({inode, reinterpret_cast<const char*>(&buffer[offset + 19])});
        offset += length;
    }
    return entries;
}

class DirectoryListingTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-dirent-test-XXXXXX";
        ASSERT_TRUE(mkdtemp(pattern));
        directory_ = pattern;
        for (const char* name : {"zeta", "alpha", "mid", "Beta", "a_long_name_that_needs_padding"}) {
            std::ofstream(directory_ / name) << name;
        }
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }

    // One real getdents64 call on the directory.
    std::vector<uint8_t> read_directory(struct stat& status) {
        const int fd = open(directory_.c_str(), O_RDONLY | O_DIRECTORY);
        EXPECT_GE(fd, 0);
        fstat(fd, &status);
        std::vector<uint8_t> buffer(4096);
        const long length = syscall(SYS_getdents64, fd, buffer.data(), buffer.size());
        close(fd);
        EXPECT_GT(length, 0);
        buffer.resize(static_cast<size_t>(length));
        return buffer;
    }

    std::filesystem::path directory_;
};

TEST_F(DirectoryListingTest, SortsARealBufferByNameAndVirtualizesInodes) {
    struct stat directory {};
    std::vector<uint8_t> buffer = read_directory(directory);
    const size_t size = buffer.size();
    InodeTable inodes;
    ASSERT_TRUE(virtualize_directory_entries(buffer, directory.st_dev, inodes));
    ASSERT_EQ(buffer.size(), size);

    const std::vector<Entry> entries = entries_of(buffer);
    std::vector<std::string> names;
    for (const Entry& entry : entries) {
        names.push_back(entry.name);
    }
    EXPECT_EQ(names, (std::vector<std::string>{".", "..", "Beta", "a_long_name_that_needs_padding", "alpha",
                                               "mid", "zeta"}));
    for (size_t index = 0; index < entries.size(); ++index) {
        EXPECT_EQ(entries[index].inode, InodeTable::kFirstInode + index) << entries[index].name;
    }

    // stat of one of the files yields the same virtual inode as its directory entry.
    struct stat file {};
    ASSERT_EQ(stat((directory_ / "mid").c_str(), &file), 0);
    VirtualClock clock;
    FileTimes times(clock, 0);
    StatRewriter(inodes, times, clock).rewrite(file);
    EXPECT_EQ(file.st_ino, entries[5].inode);
}

TEST_F(DirectoryListingTest, RejectsMalformedRecords) {
    struct stat directory {};
    std::vector<uint8_t> buffer = read_directory(directory);
    const std::vector<uint8_t> original = buffer;
    buffer[16] = 0xff; // first record length now runs past the end
    buffer[17] = 0xff;
    InodeTable inodes;
    EXPECT_FALSE(virtualize_directory_entries(buffer, directory.st_dev, inodes));
    buffer[16] = original[16];
    buffer[17] = original[17];
    EXPECT_EQ(buffer, original);
}

} // namespace
} // namespace hermit::tracer::virt
