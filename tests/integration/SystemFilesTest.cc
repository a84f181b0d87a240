// System files are inputs of a recording (replay/SystemFiles.h): a replay shows the guest the bytes the
// recording saw at /etc, /usr and /lib paths, after the system changed them (here: a file bind-mounted
// over the original in a mount namespace of the replay's own, as a package upgrade would rewrite it).
// Their bytes are kept once per store, shared by recordings, and go with the last recording using them.
#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace hermit::testing {
namespace {

class SystemFilesTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (geteuid() != 0) {
            GTEST_SKIP() << "fanotify mount marks and the replays' bind mounts need root (CAP_SYS_ADMIN)";
        }
        char pattern[] = "/tmp/hermit-system-files-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
        data_dir_ = directory_ / "recordings";
    }
    void TearDown() override {
        if (!directory_.empty()) {
            std::filesystem::remove_all(directory_);
        }
    }

    std::vector<std::string> environment() const { return {"HERMIT_DATA_DIR=" + data_dir_.string()}; }

    ProcessResult hermit(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin(), hermit_binary());
        return run_process(arguments, "", 120, environment());
    }

    // `hermit replay --autopilot ID` in a mount namespace where `replacement` is mounted over `original`.
    ProcessResult replay_with_changed(const std::string& id, const std::filesystem::path& original,
                                      const std::filesystem::path& replacement) {
        const std::string script = "mount --bind \"$1\" \"$2\" && exec \"$3\" replay --autopilot \"$4\"";
        return run_process({"unshare", "--mount", "--propagation", "private", "sh", "-c", script, "sh",
                            replacement.string(), original.string(), hermit_binary(), id},
                           "", 120, environment());
    }

    std::filesystem::path write_file(const std::string& name, const std::string& contents) {
        const std::filesystem::path path = directory_ / name;
        std::ofstream(path) << contents;
        return path;
    }

    size_t blob_count() const {
        size_t count = 0;
        std::error_code error;
        for (auto it = std::filesystem::recursive_directory_iterator(data_dir_ / ".blobs", error);
             !error && it != std::filesystem::recursive_directory_iterator(); it.increment(error)) {
            count += it->is_regular_file() && it->path().filename().string().size() == 64;
        }
        return count;
    }

    std::filesystem::path directory_;
    std::filesystem::path data_dir_;
};

std::string contents_of(const std::filesystem::path& path) {
    std::ifstream file(path);
    return std::string(std::istreambuf_iterator<char>(file), {});
}

TEST_F(SystemFilesTest, AReplayShowsTheRecordedBytesOfAChangedEtcFile) {
    const ProcessResult recorded = hermit({"record", "start", "--", "cat", "/etc/os-release"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ASSERT_EQ(recorded.stdout_text, contents_of("/etc/os-release"));
    std::string changed = recorded.stdout_text;
    changed[0] = changed[0] == 'X' ? 'Y' : 'X'; // same length: only the bytes tell
    const ProcessResult replayed =
        replay_with_changed("cat-1", "/etc/os-release", write_file("os-release", changed));
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text) << replayed.stderr_text;
}

// After an upgrade the loader cache names other libraries: the replay must still load the recorded ones.
TEST_F(SystemFilesTest, AReplayUsesTheRecordedLoaderCache) {
    if (access("/usr/bin/python3", X_OK) != 0 || access("/sbin/ldconfig", X_OK) != 0) {
        GTEST_SKIP() << "needs /usr/bin/python3 and ldconfig (scripts/install-deps.sh installs them)";
    }
    const std::filesystem::path libraries = directory_ / "otherlib";
    std::filesystem::create_directories(libraries);
    std::filesystem::copy_file("/usr/lib/x86_64-linux-gnu/libz.so.1", libraries / "libz.so.1");
    const std::filesystem::path configuration =
        write_file("ld.so.conf", libraries.string() + "\ninclude /etc/ld.so.conf.d/*.conf\n");
    const std::filesystem::path cache = directory_ / "ld.so.cache";
    ASSERT_EQ(run_process({"/sbin/ldconfig", "-C", cache.string(), "-f", configuration.string()}).exit_status,
              0);
    ASSERT_NE(contents_of(cache), contents_of("/etc/ld.so.cache"));

    const ProcessResult recorded =
        hermit({"record", "start", "--", "/usr/bin/python3", "-c", "import zlib; print(zlib.crc32(b'abc'))"});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    const ProcessResult replayed = replay_with_changed("python3-1", "/etc/ld.so.cache", cache);
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "891568578\n") << replayed.stderr_text;
}

TEST_F(SystemFilesTest, RecordingsShareTheBytesOfTheirSystemFilesUntilTheLastIsRemoved) {
    const std::vector<std::string> command = {"record", "start", "--",
                                              "sh",     "-c",    "cat /etc/os-release | wc -l"};
    ASSERT_EQ(hermit(command).exit_status, 0);
    const size_t after_one = blob_count();
    EXPECT_GE(after_one, 4u) << "sh, cat, wc, libc, the loader cache, /etc/os-release";
    ASSERT_EQ(hermit(command).exit_status, 0);
    EXPECT_EQ(blob_count(), after_one) << "the second recording opened the same files";
    ASSERT_EQ(hermit({"record", "rm", "sh-1"}).exit_status, 0);
    EXPECT_EQ(blob_count(), after_one) << "sh-2 still uses them";
    ASSERT_EQ(hermit({"record", "rm", "sh-2"}).exit_status, 0);
    EXPECT_EQ(blob_count(), 0u);
}

TEST_F(SystemFilesTest, AChangedFileWhoseRecordedBytesAreGoneIsNamed) {
    ASSERT_EQ(hermit({"record", "start", "--", "cat", "/etc/os-release"}).exit_status, 0);
    std::filesystem::remove_all(data_dir_ / ".blobs");
    const ProcessResult replayed =
        replay_with_changed("cat-1", "/etc/os-release", write_file("os-release", "ID=other\n"));
    EXPECT_EQ(replayed.exit_status, 4) << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("E041"), std::string::npos) << replayed.stderr_text;
    // Named as the guest's open found it (on Debian, /etc/os-release links to /usr/lib/os-release).
    const std::string found = std::filesystem::canonical("/etc/os-release").string();
    EXPECT_NE(replayed.stderr_text.find(found + " changed since it was recorded"), std::string::npos)
        << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "");
}

// A system file gone since the recording (here its directory is an empty tmpfs in the replay's mount
// namespace, as after a package's removal) is made again in the guest's namespace with the recorded bytes.
TEST_F(SystemFilesTest, AReplayShowsASystemFileThatIsGoneSince) {
    const std::string file = "/usr/share/common-licenses/GPL-3";
    if (access(file.c_str(), R_OK) != 0) {
        GTEST_SKIP() << file << " (Debian's base-files) is not here";
    }
    const ProcessResult recorded = hermit({"record", "start", "--", "head", "-c", "60", file});
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    const std::string script =
        "mount -t tmpfs none /usr/share/common-licenses && exec \"$0\" replay --autopilot";
    const ProcessResult replayed =
        run_process({"unshare", "--mount", "--propagation", "private", "sh", "-c", script, hermit_binary()},
                    "", 120, environment());
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text) << replayed.stderr_text;
    EXPECT_TRUE(std::filesystem::exists(file)) << "the host's file is untouched";
}

// The recorded working directory, gone since, exists in the replay's namespace (the host keeps not having
// it), so a recording made in a removed build tree still replays.
TEST_F(SystemFilesTest, AReplayRunsInItsRecordedDirectoryAfterItWasRemoved) {
    const std::filesystem::path work = directory_ / "gone" / "work";
    std::filesystem::create_directories(work);
    std::ofstream(work / "in.txt") << "hello\n";
    const ProcessResult recorded =
        run_process({"sh", "-c", "cd \"$0\" && exec \"$1\" record start -- sh -c 'pwd; cat in.txt'",
                     work.string(), hermit_binary()},
                    "", 120, environment());
    ASSERT_EQ(recorded.exit_status, 0) << recorded.stderr_text;
    ASSERT_EQ(recorded.stdout_text, work.string() + "\nhello\n");
    std::filesystem::remove_all(directory_ / "gone");
    const ProcessResult replayed = hermit({"replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, recorded.stdout_text) << replayed.stderr_text;
    EXPECT_FALSE(std::filesystem::exists(directory_ / "gone"));
}

// `record pack` takes a recording and the system files it keeps to another store (another machine), where
// it replays with the recorded bytes after the system changed; `record unpack` refuses a damaged pack or
// a second copy, and `record gc` removes what no recording refers to.
TEST_F(SystemFilesTest, APackedRecordingReplaysInAnotherStore) {
    ASSERT_EQ(hermit({"record", "start", "--", "cat", "/etc/os-release"}).exit_status, 0);
    const std::filesystem::path pack = directory_ / "cat.hpack";
    const ProcessResult packed = hermit({"record", "pack", "cat-1", "-o", pack.string()});
    ASSERT_EQ(packed.exit_status, 0) << packed.stderr_text;
    const ProcessResult listed = run_process({"tar", "tJf", pack.string()});
    EXPECT_NE(listed.stdout_text.find("cat-1/meta.capnp.bin\n"), std::string::npos) << listed.stdout_text;
    EXPECT_NE(listed.stdout_text.find(".blobs/"), std::string::npos) << listed.stdout_text;

    const std::filesystem::path first_store = data_dir_;
    data_dir_ = directory_ / "elsewhere";
    const ProcessResult unpacked = hermit({"record", "unpack", pack.string()});
    ASSERT_EQ(unpacked.exit_status, 0) << unpacked.stderr_text;
    EXPECT_GE(blob_count(), 1u);
    std::string changed = contents_of("/etc/os-release");
    changed[0] = changed[0] == 'X' ? 'Y' : 'X';
    const ProcessResult replayed =
        replay_with_changed("cat-1", "/etc/os-release", write_file("os-release", changed));
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, contents_of("/etc/os-release")) << replayed.stderr_text;
    const ProcessResult again = hermit({"record", "unpack", pack.string()});
    EXPECT_EQ(again.exit_status, 3);
    EXPECT_NE(again.stderr_text.find("E037"), std::string::npos) << again.stderr_text;

    std::string bytes = contents_of(pack);
    bytes[bytes.size() / 2] = static_cast<char>(bytes[bytes.size() / 2] ^ 0x40);
    const std::filesystem::path damaged = write_file("damaged.hpack", bytes);
    data_dir_ = directory_ / "third";
    const ProcessResult refused = hermit({"record", "unpack", damaged.string()});
    EXPECT_EQ(refused.exit_status, 3);
    EXPECT_NE(refused.stderr_text.find("E036"), std::string::npos) << refused.stderr_text;
    EXPECT_EQ(hermit({"record", "list"}).stderr_text.find("E0"), std::string::npos);
    EXPECT_FALSE(std::filesystem::exists(data_dir_ / "cat-1"));

    data_dir_ = first_store;
    std::filesystem::remove_all(data_dir_ / "cat-1"); // by hand: no `record rm` to collect its blobs
    ASSERT_GE(blob_count(), 1u);
    const ProcessResult collected = hermit({"record", "gc"});
    EXPECT_EQ(collected.exit_status, 0) << collected.stderr_text;
    EXPECT_EQ(blob_count(), 0u) << collected.stderr_text;
}

} // namespace
} // namespace hermit::testing
