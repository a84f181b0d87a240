// Session against real guest programs: exit statuses, interceptors (emulation, results replaced at exit,
// injected syscalls), the event stream, and identical schedules across runs.
#include "tracer/Session.h"
#include "tracer/Task.h"

#include "formats/Error.h"

#include <gtest/gtest.h>
#include <spdlog/spdlog.h>

#include <sys/syscall.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

extern char** environ;

namespace {
// HERMIT_TEST_TRACE=1 shows the tracer's stop-by-stop log when a test needs debugging.
const bool g_trace_logging = [] {
    if (std::getenv("HERMIT_TEST_TRACE") != nullptr) {
        spdlog::set_level(spdlog::level::trace);
    }
    return true;
}();
} // namespace

namespace hermit::tracer {
namespace {

std::vector<std::string> test_environment() {
    std::vector<std::string> env;
    for (char** entry = environ; *entry != nullptr; ++entry) {
        env.emplace_back(*entry);
    }
    return env;
}

SessionOptions shell(const std::string& script, bool namespaces) {
    SessionOptions options;
    options.argv = {"sh", "-c", script};
    options.env = test_environment();
    options.namespaces = namespaces;
    return options;
}

class OutputFile : public ::testing::Test {
protected:
    void SetUp() override {
        char pattern[] = "/tmp/hermit-session-XXXXXX";
        int fd = mkstemp(pattern);
        ASSERT_GE(fd, 0);
        close(fd);
        path_ = pattern;
    }
    void TearDown() override { std::filesystem::remove(path_); }
    std::string contents() const {
        std::ifstream stream(path_);
        std::stringstream buffer;
        buffer << stream.rdbuf();
        return buffer.str();
    }
    std::string path_;
};

bool is_uid_call(const SyscallStop& stop) {
    return stop.number == SYS_getuid || stop.number == SYS_geteuid;
}

class ConstantUid : public SyscallInterceptor {
public:
    std::set<int> trapped_syscalls() const override { return {SYS_getuid, SYS_geteuid}; }
    // The Session offers every trapped syscall (its own scheduling points too): act on ours only.
    SyscallDecision on_entry(Task&, const SyscallStop& stop) override {
        if (!is_uid_call(stop)) {
            return SyscallDecision::pass();
        }
        ++calls;
        return SyscallDecision::emulate(4242);
    }
    int calls = 0;
};

class UidAtExit : public SyscallInterceptor {
public:
    std::set<int> trapped_syscalls() const override { return {SYS_getuid, SYS_geteuid}; }
    SyscallDecision on_entry(Task&, const SyscallStop& stop) override {
        return is_uid_call(stop) ? SyscallDecision::stop_at_exit() : SyscallDecision::pass();
    }
    void on_exit(Task&, const SyscallStop&, int64_t& result) override { result = 77; }
};

class InjectedUid : public SyscallInterceptor {
public:
    std::set<int> trapped_syscalls() const override { return {SYS_getuid, SYS_geteuid}; }
    SyscallDecision on_entry(Task& task, const SyscallStop& stop) override {
        if (!is_uid_call(stop)) {
            return SyscallDecision::pass();
        }
        int64_t real = task.inject_syscall(stop.number, {});
        return SyscallDecision::emulate(real + 1000);
    }
};

class EventLog : public EventSink {
public:
    void on_event(const Event& event) override { events.push_back(event); }
    std::vector<Event> events;
};

TEST(Session, ExitStatusPassesThrough) {
    EXPECT_EQ(Session(shell("exit 7", false)).run(), 7);
    EXPECT_EQ(Session(shell("exit 7", true)).run(), 7);
}

TEST(Session, DeathBySignalIs128PlusN) {
    EXPECT_EQ(Session(shell("kill -SEGV $$", false)).run(), 139);
    // In a pid namespace the guest is init, which the kernel never lets die of a default action.
    EXPECT_EQ(Session(shell("kill -SEGV $$", true)).run(), 139);
}

TEST(Session, MissingProgramIsGuestNotFound) {
    SessionOptions options;
    options.argv = {"no-such-program-for-hermit"};
    options.env = test_environment();
    try {
        Session(options).run();
        FAIL() << "run succeeded";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::GuestNotFound);
        EXPECT_EQ(error.exit_status(), 127);
    }
}

TEST_F(OutputFile, EmulatedSyscallResultReachesTheGuest) {
    ConstantUid interceptor;
    Session session(shell("id -u > " + path_, true));
    session.add_interceptor(&interceptor);
    EXPECT_EQ(session.run(), 0);
    EXPECT_EQ(contents(), "4242\n");
    EXPECT_GT(interceptor.calls, 0);
}

TEST_F(OutputFile, ResultCanBeReplacedAtExit) {
    UidAtExit interceptor;
    Session session(shell("id -u > " + path_, false));
    session.add_interceptor(&interceptor);
    EXPECT_EQ(session.run(), 0);
    EXPECT_EQ(contents(), "77\n");
}

TEST_F(OutputFile, InjectedSyscallRunsInTheGuest) {
    InjectedUid interceptor;
    Session session(shell("id -u > " + path_, false));
    session.add_interceptor(&interceptor);
    EXPECT_EQ(session.run(), 0);
    EXPECT_EQ(contents(), std::to_string(geteuid() + 1000) + "\n");
}

TEST(Session, EventStreamDescribesTheRun) {
    EventLog log;
    ConstantUid interceptor;
    Session session(shell("id -u > /dev/null", true));
    session.add_interceptor(&interceptor);
    session.add_event_sink(&log);
    EXPECT_EQ(session.run(), 0);
    ASSERT_GE(log.events.size(), 4u);
    EXPECT_TRUE(std::holds_alternative<ThreadStartEvent>(log.events.front().payload));
    EXPECT_EQ(log.events.front().tid, 1); // the guest is pid 1 of its namespace
    auto& last = std::get<ThreadExitEvent>(log.events.back().payload);
    EXPECT_TRUE(last.process_exit);
    int execs = 0, emulated = 0, starts = 0;
    for (size_t index = 0; index < log.events.size(); ++index) {
        const Event& event = log.events[index];
        if (index > 0) {
            EXPECT_GT(event.time, log.events[index - 1].time);
        }
        if (auto* exec = std::get_if<ExecEvent>(&event.payload)) {
            ++execs;
            EXPECT_FALSE(exec->argv.empty());
        }
        if (auto* syscall = std::get_if<SyscallEvent>(&event.payload)) {
            emulated += syscall->emulated && syscall->result == 4242;
        }
        starts += std::holds_alternative<ThreadStartEvent>(event.payload);
    }
    EXPECT_EQ(execs, 2); // sh, then id in the forked child (or sh exec'ing id directly)
    EXPECT_GT(emulated, 0);
    EXPECT_GE(starts, 1);
}

// The kinds and threads of schedule and syscall events, which must not change between runs.
std::vector<std::string> schedule_trace(const std::vector<Event>& events) {
    std::vector<std::string> trace;
    for (const Event& event : events) {
        if (auto* schedule = std::get_if<ScheduleEvent>(&event.payload)) {
            trace.push_back("schedule " + std::to_string(schedule->previous_tid) + "->" +
                            std::to_string(event.tid));
        } else if (auto* syscall = std::get_if<SyscallEvent>(&event.payload)) {
            trace.push_back("syscall " + std::to_string(event.tid) + " " + std::to_string(syscall->number));
        }
    }
    return trace;
}

TEST_F(OutputFile, MultithreadedScheduleIsTheSameEveryRun) {
    std::vector<std::vector<std::string>> traces;
    for (int run = 0; run < 2; ++run) {
        EventLog log;
        SessionOptions options;
        options.argv = {std::string(HERMIT_GUEST_DIR) + "/tracer_threads"};
        options.env = test_environment();
        Session session(options);
        session.add_event_sink(&log);
        EXPECT_EQ(session.run(), 0);
        traces.push_back(schedule_trace(log.events));
    }
    // At least a switch to and back from each of the 4 worker threads.
    EXPECT_GE(traces[0].size(), 8u);
    EXPECT_EQ(traces[0], traces[1]);
}

} // namespace
} // namespace hermit::tracer
