// GuestFileIo on a real guest: with every read, write, pread64, pwrite64 and lseek of regular files done by
// the tracer, the guest gets exactly what the kernel gives it natively.

#include "replay/GuestFileIo.h"

#include "tracer/GuestRun.h"

#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>

extern char** environ;

namespace hermit::replay {
namespace {

// Performs every file read and write it can in the tracer and counts them.
class PerformFileIo : public tracer::SyscallInterceptor {
public:
    std::set<int> trapped_syscalls() const override {
        return {SYS_read, SYS_write, SYS_pread64, SYS_pwrite64, SYS_lseek};
    }
    tracer::SyscallDecision on_entry(tracer::Task& task, const tracer::SyscallStop& stop) override {
        auto done = GuestFileIo::perform(task, stop, [](const ObjectIdentity&) { return true; });
        if (!done) {
            return tracer::SyscallDecision::pass();
        }
        performed++;
        return tracer::SyscallDecision::emulate(done->result);
    }
    int performed = 0;
};

std::string contents(const std::filesystem::path& path) {
    std::ifstream stream(path);
    return std::string(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
}

TEST(GuestFileIo, GuestSeesWhatTheKernelGivesNatively) {
    const int own = static_cast<int>(syscall(SYS_pidfd_open, getpid(), 0));
    const int duplicate = own >= 0 ? static_cast<int>(syscall(SYS_pidfd_getfd, own, 1, 0)) : -1;
    if (own >= 0) {
        close(own);
    }
    if (duplicate < 0) {
        GTEST_SKIP() << "pidfd_getfd is not available: the tracer cannot duplicate a guest's descriptors";
    }
    close(duplicate);
    char pattern[] = "/tmp/hermit-file-io-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::filesystem::path directory = pattern;
    std::filesystem::create_directories(directory / "native");
    std::filesystem::create_directories(directory / "traced");
    const std::string guest = std::string(HERMIT_GUEST_DIR) + "/replay_file_io";

    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        execl(guest.c_str(), guest.c_str(), (directory / "native").c_str(),
              (directory / "native.txt").c_str(), static_cast<char*>(nullptr));
        _exit(127);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; entry++) {
        env.emplace_back(*entry);
    }
    tracer::GuestRun run(tracer::GuestRunSpec{
        {guest, (directory / "traced").string(), (directory / "traced.txt").string()}, env, {}, RunConfig{}});
    PerformFileIo file_io;
    run.add_interceptor(&file_io);
    EXPECT_EQ(run.run(), 0);

    const std::string native = contents(directory / "native.txt");
    EXPECT_NE(native.find("read 5 = 5 hello"), std::string::npos) << native;
    EXPECT_NE(native.find("read /proc/self/comm = 15 replay_file_io"), std::string::npos) << native;
    EXPECT_EQ(contents(directory / "traced.txt"), native);
    EXPECT_EQ(contents(directory / "traced" / "data"), contents(directory / "native" / "data"));
    EXPECT_EQ(contents(directory / "traced" / "appended"), "ab");
    // Every call but the /proc read (its size reads as 0) is performed: the 20 report lines and the 19 other
    // calls on regular files (and the dynamic loader's reads of the libraries).
    EXPECT_GE(file_io.performed, 39);
    std::filesystem::remove_all(directory);
}

} // namespace
} // namespace hermit::replay
