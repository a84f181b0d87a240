// MadeNames over a real temporary directory: the guest's symlinks resolve together with the real ones, as
// the kernel resolves them, and renames and removals keep the names in step.
#include "replay/MadeNames.h"

#include <gtest/gtest.h>

#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>

namespace hermit::replay {
namespace {

class MadeNamesTest : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-made-names-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        root_ = std::filesystem::canonical(pattern).string();
    }
    void TearDown() override { std::filesystem::remove_all(root_); }

    std::string root_;
    MadeNames names_;
};

TEST_F(MadeNamesTest, MadeSymlinksResolveFromTheLinksDirectoryOrTheRoot) {
    names_.made_directory(root_ + "/dir");
    names_.made_symlink(root_ + "/relative", "dir/file");
    names_.made_symlink(root_ + "/absolute", root_ + "/relative");
    names_.made_symlink(root_ + "/dir/up", "../dir/./file");
    EXPECT_EQ(names_.resolve(root_ + "/relative", true).path, root_ + "/dir/file");
    EXPECT_EQ(names_.resolve(root_ + "/absolute", true).path, root_ + "/dir/file");
    EXPECT_EQ(names_.resolve(root_ + "/dir/up", true).path, root_ + "/dir/file");
    EXPECT_EQ(names_.resolve(root_ + "/absolute", false).path, root_ + "/absolute");
    EXPECT_EQ(names_.entry_path(root_ + "/absolute/.."), root_ + "/dir");
}

TEST_F(MadeNamesTest, RealSymlinksResolveOnTheWayToMadeOnes) {
    std::filesystem::create_directory(root_ + "/real");
    std::filesystem::create_directory_symlink("real", root_ + "/real-link");
    names_.made_symlink(root_ + "/real/made", "../real/target");
    EXPECT_EQ(names_.resolve(root_ + "/real-link/made", true).path, root_ + "/real/target");
    EXPECT_EQ(names_.entry_path(root_ + "/real-link/made"), root_ + "/real/made");
    // The kernel finds the first by itself; the second needs the replay's view.
    EXPECT_FALSE(names_.resolve(root_ + "/real-link/other", true).through_made_symlink);
    EXPECT_TRUE(names_.resolve(root_ + "/real-link/made", true).through_made_symlink);
}

// The replay left the user's symlink where it was; the guest's kernel no longer found it, nor after the
// guest made a file of that name.
TEST_F(MadeNamesTest, ARealSymlinkTheGuestRemovedIsNotFollowed) {
    std::filesystem::create_symlink("target", root_ + "/real-link");
    names_.removed(root_ + "/real-link");
    EXPECT_TRUE(names_.was_removed(root_ + "/real-link"));
    EXPECT_EQ(names_.resolve(root_ + "/real-link", true).path, root_ + "/real-link");
    names_.made_file(root_ + "/real-link");
    EXPECT_FALSE(names_.was_removed(root_ + "/real-link"));
    EXPECT_EQ(names_.resolve(root_ + "/real-link", true).path, root_ + "/real-link");
}

TEST_F(MadeNamesTest, ALoopIsLeftAfterFortySymlinks) {
    names_.made_symlink(root_ + "/a", "b");
    names_.made_symlink(root_ + "/b", "a");
    EXPECT_EQ(names_.resolve(root_ + "/a", true).path, root_ + "/a");
}

TEST_F(MadeNamesTest, ARenamedDirectoryTakesWhatIsUnderItAndARemovedNameIsGone) {
    names_.made_directory(root_ + "/old");
    names_.made_directory(root_ + "/old/sub");
    names_.made_directory(root_ + "/old-sibling");
    names_.made_symlink(root_ + "/old/link", "sub");
    names_.set_stand_in(root_ + "/old/sub", "/scratch/7");
    names_.renamed(root_ + "/old", root_ + "/new");
    EXPECT_FALSE(names_.is_directory(root_ + "/old/sub"));
    EXPECT_TRUE(names_.is_directory(root_ + "/new/sub"));
    EXPECT_TRUE(names_.is_directory(root_ + "/old-sibling"));
    EXPECT_EQ(names_.resolve(root_ + "/new/link/file", true).path, root_ + "/new/sub/file");
    EXPECT_EQ(names_.guest_name("/scratch/7/file"), root_ + "/new/sub/file");
    EXPECT_EQ(names_.guest_name("/scratch/70"), "/scratch/70");

    EXPECT_TRUE(names_.was_removed(root_ + "/old"));
    names_.removed(root_ + "/new/link");
    EXPECT_EQ(names_.symlink_target(root_ + "/new/link"), std::nullopt);
    EXPECT_EQ(names_.resolve(root_ + "/new/link/file", true).path, root_ + "/new/link/file");
}

TEST_F(MadeNamesTest, MovedEntriesReplaceWhatTheNewNameHeld) {
    std::map<std::string, int> files = {{"/d/a", 1}, {"/d/b", 2}, {"/e", 3}, {"/e/c", 4}, {"/dx", 5}};
    MadeNames::move_entries(files, "/d", "/e");
    EXPECT_EQ(files, (std::map<std::string, int>{{"/dx", 5}, {"/e/a", 1}, {"/e/b", 2}}));
}

} // namespace
} // namespace hermit::replay
