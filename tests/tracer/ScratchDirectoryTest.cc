// ScratchDirectory: made in $TMPDIR/hermit-<uid> on first use, removed with the object, and a killed
// hermit's (old, unlocked, same prefix) removed when another is made; a live one, or one just made, is kept.
#include "tracer/ScratchDirectory.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>
#include <fstream>
#include <optional>
#include <string>

namespace hermit::tracer {
namespace {

class ScratchDirectoryTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (std::filesystem::temp_directory_path() / "scratch-test-XXXXXX").string();
        ASSERT_NE(mkdtemp(pattern.data()), nullptr);
        parent_ = pattern;
        if (const char* saved = std::getenv("TMPDIR")) {
            saved_tmpdir_ = saved;
        }
        setenv("TMPDIR", parent_.c_str(), 1);
        own_ = parent_ / ("hermit-" + std::to_string(geteuid()));
    }
    void TearDown() override {
        if (saved_tmpdir_) {
            setenv("TMPDIR", saved_tmpdir_->c_str(), 1);
        } else {
            unsetenv("TMPDIR");
        }
        std::filesystem::remove_all(parent_);
    }

    // Sets the time `directory` last changed to `age_seconds` ago.
    static void age(const std::filesystem::path& directory, int age_seconds) {
        const timespec then{std::time(nullptr) - age_seconds, 0};
        const timespec times[2] = {then, then};
        ASSERT_EQ(utimensat(AT_FDCWD, directory.c_str(), times, 0), 0);
    }

    // A directory `name` in hermit's directory with a file in it, as a killed hermit leaves one, changed
    // `age_seconds` ago.
    std::filesystem::path left_behind(const std::string& name, int age_seconds) const {
        const std::filesystem::path directory = own_ / name;
        std::filesystem::create_directories(directory);
        std::ofstream(directory / "random-0") << "bytes";
        age(directory, age_seconds);
        return directory;
    }

    std::filesystem::path parent_; // $TMPDIR
    std::filesystem::path own_;    // $TMPDIR/hermit-<uid>
    std::optional<std::string> saved_tmpdir_;
};

TEST_F(ScratchDirectoryTest, IsMadeOnFirstUseAndRemovedWithTheObject) {
    std::filesystem::path made;
    {
        ScratchDirectory scratch("test",
                                 std::filesystem::perms::owner_all | std::filesystem::perms::others_exec);
        EXPECT_TRUE(std::filesystem::is_empty(parent_));
        made = scratch.path();
        ASSERT_FALSE(made.empty());
        EXPECT_EQ(made.parent_path(), own_);
        EXPECT_TRUE(made.filename().string().starts_with("test-"));
        EXPECT_EQ(std::filesystem::status(own_).permissions() & std::filesystem::perms::all,
                  std::filesystem::perms::owner_all | std::filesystem::perms::group_exec |
                      std::filesystem::perms::others_exec);
        EXPECT_EQ(scratch.path(), made);
        EXPECT_EQ(std::filesystem::status(made).permissions(),
                  std::filesystem::perms::owner_all | std::filesystem::perms::others_exec);
        std::ofstream(made / "file") << "x";
    }
    EXPECT_FALSE(std::filesystem::exists(made));
}

TEST_F(ScratchDirectoryTest, RemovesOnlyTheOldUnlockedDirectoriesOfItsPrefix) {
    const int old = ScratchDirectory::kAbandonedAfterSeconds + 60;
    const std::filesystem::path abandoned = left_behind("test-abandoned", old);
    const std::filesystem::path just_made = left_behind("test-just-made", 0);
    const std::filesystem::path other_prefix = left_behind("other-abandoned", old);
    ScratchDirectory live("test");
    ASSERT_FALSE(live.path().empty());
    age(live.path(), old);

    ScratchDirectory scratch("test");
    ASSERT_FALSE(scratch.path().empty());
    EXPECT_FALSE(std::filesystem::exists(abandoned));
    EXPECT_TRUE(std::filesystem::exists(just_made));
    EXPECT_TRUE(std::filesystem::exists(other_prefix));
    EXPECT_TRUE(std::filesystem::exists(live.path()));
}

// Where others could change $TMPDIR/hermit-<uid>, hermit neither uses it nor sweeps anything.
TEST_F(ScratchDirectoryTest, SkipsAHermitDirectoryOthersCanWrite) {
    const std::filesystem::path abandoned =
        left_behind("test-abandoned", ScratchDirectory::kAbandonedAfterSeconds + 60);
    std::filesystem::permissions(own_, std::filesystem::perms::all);
    ScratchDirectory scratch("test");
    ASSERT_FALSE(scratch.path().empty());
    EXPECT_EQ(scratch.path().parent_path(), parent_);
    EXPECT_TRUE(scratch.path().filename().string().starts_with("hermit-test-"));
    EXPECT_TRUE(std::filesystem::exists(abandoned));
}

TEST_F(ScratchDirectoryTest, IsEmptyWithErrnoWhenItCannotBeMade) {
    setenv("TMPDIR", (parent_ / "missing").c_str(), 1);
    ScratchDirectory scratch("test");
    errno = 0;
    EXPECT_TRUE(scratch.path().empty());
    EXPECT_NE(errno, 0);
}

} // namespace
} // namespace hermit::tracer
