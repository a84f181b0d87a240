#include "tracer/ExecutableResolver.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hermit::tracer {
namespace {

ErrorCode code_of(const std::string& name, const std::string& path) {
    try {
        resolve_executable(name, path);
    } catch (const Error& error) {
        return error.code();
    }
    ADD_FAILURE() << name << " resolved";
    return ErrorCode::TracerInternal;
}

class ResolverDirectory : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-resolver-XXXXXX";
        ASSERT_NE(mkdtemp(pattern), nullptr);
        directory_ = pattern;
    }
    void TearDown() override { std::filesystem::remove_all(directory_); }
    std::string make_file(const std::string& name, mode_t mode) {
        std::string path = directory_ + "/" + name;
        std::ofstream(path) << "#!/bin/sh\n";
        chmod(path.c_str(), mode);
        return path;
    }
    std::string directory_;
};

TEST_F(ResolverDirectory, FindsTheFirstExecutableInPathOrder) {
    std::string second = directory_ + "/second";
    std::filesystem::create_directory(second);
    make_file("tool", 0644); // not executable: skipped in favour of the next directory
    std::string executable = second + "/tool";
    std::ofstream(executable) << "#!/bin/sh\n";
    chmod(executable.c_str(), 0755);
    EXPECT_EQ(resolve_executable("tool", directory_ + ":" + second), executable);
}

TEST_F(ResolverDirectory, MissingProgramIsGuestNotFound) {
    EXPECT_EQ(code_of("no-such-program-hermit", directory_), ErrorCode::GuestNotFound);
    EXPECT_EQ(code_of(directory_ + "/absent", "/usr/bin"), ErrorCode::GuestNotFound);
}

TEST_F(ResolverDirectory, NonExecutableProgramIsGuestNotExecutable) {
    std::string path = make_file("data", 0644);
    EXPECT_EQ(code_of("data", directory_), ErrorCode::GuestNotExecutable);
    EXPECT_EQ(code_of(path, ""), ErrorCode::GuestNotExecutable);
}

TEST_F(ResolverDirectory, DirectoriesAreNotPrograms) {
    std::filesystem::create_directory(directory_ + "/folder");
    EXPECT_EQ(code_of("folder", directory_), ErrorCode::GuestNotFound);
}

TEST(Resolver, NamesWithASlashAreUsedAsGiven) {
    EXPECT_EQ(resolve_executable("/bin/sh", "/nonexistent"), "/bin/sh");
}

TEST(Resolver, FindsShellInSystemPath) {
    std::string path = resolve_executable("sh", "/nonexistent:/usr/bin:/bin");
    EXPECT_TRUE(path == "/usr/bin/sh" || path == "/bin/sh") << path;
}

TEST(Resolver, SearchPathIsTheEnvironmentsFirstPathOrTheDefault) {
    EXPECT_EQ(search_path_of({"HOME=/root", "PATH=/opt/bin:/bin", "PATH=/other"}), "/opt/bin:/bin");
    EXPECT_EQ(search_path_of({"PATH="}), "");
    EXPECT_EQ(search_path_of({"HOME=/root", "MYPATH=/x"}), "/usr/bin:/bin");
}

} // namespace
} // namespace hermit::tracer
