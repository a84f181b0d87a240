// hermit as a user runs it from a shell: in a terminal (a real pty, hermit its session's foreground job),
// and stopped with signals sent to its process group as a terminal's Ctrl-C or a shell's kill sends them,
// or by `timeout`. Recordings made that way replay, without a terminal, to the same output and status.
#include "HermitProcess.h"

#include <gtest/gtest.h>

#include <fcntl.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

namespace hermit::testing {
namespace {

struct Finished {
    std::string output;
    int exit_status = -1;
};

int shell_status(int status) {
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

[[noreturn]] void exec_argv(const std::vector<std::string>& argv) {
    std::vector<char*> words;
    for (const std::string& word : argv) {
        words.push_back(const_cast<char*>(word.c_str()));
    }
    words.push_back(nullptr);
    execvp(words[0], words.data());
    _exit(127);
}

class InteractiveTest : public ::testing::Test {
protected:
    void SetUp() override {
        data_dir_ = std::filesystem::temp_directory_path() /
                    ("hermit-interactive-" + std::to_string(getpid()) + "-" +
                     ::testing::UnitTest::GetInstance()->current_test_info()->name());
        std::filesystem::remove_all(data_dir_);
        std::filesystem::create_directories(data_dir_);
        setenv("HERMIT_DATA_DIR", data_dir_.c_str(), 1);
    }
    void TearDown() override {
        unsetenv("HERMIT_DATA_DIR");
        std::filesystem::remove_all(data_dir_);
    }

    // Runs `argv` as the only job of a new session whose controlling terminal is a new pty, with `typed`
    // typed into the terminal; returns what the terminal showed once every process let go of it.
    static Finished in_terminal(const std::vector<std::string>& argv, const std::string& typed) {
        int terminal = -1;
        const pid_t child = forkpty(&terminal, nullptr, nullptr, nullptr);
        if (child == 0) {
            exec_argv(argv);
        }
        Finished finished;
        if (child < 0) {
            ADD_FAILURE() << "forkpty failed";
            return finished;
        }
        // The line waits in the terminal until something reads it: no need to know when.
        EXPECT_EQ(write(terminal, typed.data(), typed.size()), static_cast<ssize_t>(typed.size()));
        char buffer[4096];
        for (;;) {
            const ssize_t count = read(terminal, buffer, sizeof buffer);
            if (count <= 0) {
                break; // EIO once no process has the terminal open
            }
            finished.output.append(buffer, static_cast<size_t>(count));
        }
        int status = 0;
        waitpid(child, &status, 0);
        close(terminal);
        finished.exit_status = shell_status(status);
        return finished;
    }

    // Runs `argv` in a session of its own, without a terminal, its stdin a pipe that stays open (a read
    // of it waits); once it printed `ready`, sends `signal_number` to its process group (0: none). Returns
    // its whole output and status.
    static Finished signalled_after(const std::vector<std::string>& argv, const std::string& ready,
                                    int signal_number) {
        return run_with_input(argv, ready, [signal_number](pid_t child, int) {
            if (signal_number != 0) {
                kill(-child, signal_number);
            }
        });
    }

    // As signalled_after, with `when_ready(child, input)` called once `ready` was printed; `input` is the
    // write end of the child's stdin.
    static Finished run_with_input(const std::vector<std::string>& argv, const std::string& ready,
                                   const std::function<void(pid_t, int)>& when_ready) {
        int input[2];
        int output[2];
        Finished finished;
        if (pipe2(input, O_CLOEXEC) != 0 || pipe2(output, O_CLOEXEC) != 0) {
            ADD_FAILURE() << "pipe failed";
            return finished;
        }
        const pid_t child = fork();
        if (child == 0) {
            setsid();
            dup2(input[0], 0);
            dup2(output[1], 1);
            exec_argv(argv);
        }
        close(input[0]);
        close(output[1]);
        char buffer[4096];
        bool called = ready.empty();
        for (;;) {
            const ssize_t count = read(output[0], buffer, sizeof buffer);
            if (count <= 0) {
                break;
            }
            finished.output.append(buffer, static_cast<size_t>(count));
            if (!called && finished.output.find(ready) != std::string::npos) {
                when_ready(child, input[1]);
                called = true;
            }
        }
        int status = 0;
        waitpid(child, &status, 0);
        close(input[1]);
        close(output[0]);
        finished.exit_status = shell_status(status);
        return finished;
    }

    // The guest hermit started: hermit's only child.
    static pid_t guest_of(pid_t hermit) {
        const std::string children =
            "/proc/" + std::to_string(hermit) + "/task/" + std::to_string(hermit) + "/children";
        std::ifstream listed(children);
        pid_t guest = 0;
        listed >> guest;
        return guest;
    }

    static ProcessResult replay() { return run_process({hermit_binary(), "replay", "--autopilot"}, "", 60); }

    std::filesystem::path data_dir_;
};

TEST_F(InteractiveTest, AGuestReadsWhatIsTypedIntoTheTerminal) {
    const std::vector<std::string> guest = {"--", "sh", "-c", "read line; echo got:$line"};
    for (const char* command : {"run", "record"}) {
        std::vector<std::string> argv = {hermit_binary(), command};
        if (std::string(command) == "record") {
            argv.push_back("start");
        }
        argv.insert(argv.end(), guest.begin(), guest.end());
        const Finished finished = in_terminal(argv, "typed\n");
        EXPECT_EQ(finished.exit_status, 0) << command << ": " << finished.output;
        EXPECT_NE(finished.output.find("got:typed"), std::string::npos) << command << ": " << finished.output;
    }
    // The recording holds what was typed: its replay needs no terminal.
    const ProcessResult replayed = replay();
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "got:typed\n") << replayed.stderr_text;
}

// SIGINT to the process group (a terminal's Ctrl-C, a shell's kill -INT -PGID) reaches the guest's
// handler, under run and record, and the recording replays to the same output and status.
TEST_F(InteractiveTest, SigintToTheGroupRunsTheGuestsHandler) {
    const std::string guest = guest_path("interactive_signals");
    const Finished run = signalled_after({hermit_binary(), "run", "--", guest}, "ready\n", SIGINT);
    EXPECT_EQ(run.exit_status, 42) << run.output;
    EXPECT_EQ(run.output, "ready\ngot SIGINT\n");
    const Finished recorded =
        signalled_after({hermit_binary(), "record", "start", "--", guest}, "ready\n", SIGINT);
    EXPECT_EQ(recorded.exit_status, 42) << recorded.output;
    EXPECT_EQ(recorded.output, "ready\ngot SIGINT\n");
    const ProcessResult replayed = replay();
    EXPECT_EQ(replayed.exit_status, 42) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "ready\ngot SIGINT\n") << replayed.stderr_text;
}

// The signal comes while the guest runs between syscalls (it is pending as the guest unblocks it, after
// a first byte of input), and the guest then waits in a read that nothing traps in `run`: the wait must
// not keep the signal from it.
TEST_F(InteractiveTest, ASignalTakenBetweenSyscallsEndsTheNextWait) {
    const std::string guest = guest_path("interactive_signals");
    const auto signal_then_byte = [](pid_t hermit, int input) {
        const pid_t guest_process = guest_of(hermit);
        ASSERT_GT(guest_process, 0);
        kill(guest_process, SIGINT); // queued (blocked) before the byte can be read
        ASSERT_EQ(write(input, "x", 1), 1);
    };
    for (const char* command : {"run", "record"}) {
        std::vector<std::string> argv = {hermit_binary(), command};
        if (std::string(command) == "record") {
            argv.push_back("start");
        }
        argv.insert(argv.end(), {"--", guest, "between"});
        const Finished finished = run_with_input(argv, "ready\n", signal_then_byte);
        EXPECT_EQ(finished.exit_status, 42) << command << ": " << finished.output;
        EXPECT_EQ(finished.output, "ready\ngot SIGINT\n") << command;
    }
    const ProcessResult replayed = replay();
    EXPECT_EQ(replayed.exit_status, 42) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "ready\ngot SIGINT\n") << replayed.stderr_text;
}

// A guest that computes without syscalls sees a Ctrl-C only at its next one, which may never come: the
// next Ctrl-C ends the run, as the user means it to.
TEST_F(InteractiveTest, ASecondCtrlCEndsAGuestThatNeverMakesASyscall) {
    if (access("/usr/bin/python3", X_OK) != 0) {
        GTEST_SKIP() << "needs /usr/bin/python3 (scripts/install-deps.sh installs it)";
    }
    int terminal = -1;
    const pid_t child = forkpty(&terminal, nullptr, nullptr, nullptr);
    if (child == 0) {
        exec_argv({hermit_binary(), "run", "--", "/usr/bin/python3", "-c",
                   "print('spinning', flush=True)\nwhile True: pass"});
    }
    ASSERT_GT(child, 0);
    std::string shown;
    char buffer[4096];
    while (shown.find("spinning") == std::string::npos) {
        const ssize_t count = read(terminal, buffer, sizeof buffer);
        ASSERT_GT(count, 0) << shown;
        shown.append(buffer, static_cast<size_t>(count));
    }
    // Ctrl-C until the run ends: the first is held for the guest's next syscall, a later one ends it.
    int status = 0;
    pid_t ended = 0;
    for (int presses = 0; presses < 300 && ended == 0; ++presses) {
        ASSERT_EQ(write(terminal, "\x03", 1), 1);
        usleep(100'000);
        ended = waitpid(child, &status, WNOHANG);
    }
    if (ended == 0) {
        kill(child, SIGKILL);
        waitpid(child, &status, 0);
    }
    close(terminal);
    EXPECT_NE(ended, 0) << "Ctrl-C never ended the run";
    EXPECT_EQ(shell_status(status), 128 + SIGINT);
}

// A replay does not touch the terminal it runs in: what the recording set there (stty -echo) is answered
// from the recording, where a replayed guest, not the terminal's foreground job, would be stopped.
TEST_F(InteractiveTest, ARecordingThatSetTheTerminalReplaysInATerminal) {
    const Finished recorded = in_terminal(
        {hermit_binary(), "record", "start", "--", "sh", "-c", "stty -echo; read x; stty echo; echo got:$x"},
        "secret\n");
    ASSERT_EQ(recorded.exit_status, 0) << recorded.output;
    EXPECT_NE(recorded.output.find("got:secret"), std::string::npos) << recorded.output;
    const Finished replayed = in_terminal({hermit_binary(), "replay", "--autopilot"}, "");
    EXPECT_EQ(replayed.exit_status, 0) << replayed.output;
    EXPECT_NE(replayed.output.find("got:secret"), std::string::npos) << replayed.output;
}

// A shell with job control in a real pty: what it shows, and keys typed into it.
class ShellInTerminal {
public:
    ShellInTerminal() {
        child_ = forkpty(&terminal_, nullptr, nullptr, nullptr);
        if (child_ == 0) {
            setenv("PS1", "$ ", 1);
            // Without line editing: typed-ahead lines wait in the terminal, whatever modes readline would
            // set.
            exec_argv({"bash", "--norc", "--noprofile", "--noediting", "-i"});
        }
    }
    ~ShellInTerminal() {
        if (child_ > 0) {
            kill(child_, SIGKILL);
            waitpid(child_, nullptr, 0);
        }
        close(terminal_);
    }
    void type(const std::string& keys) {
        ASSERT_EQ(write(terminal_, keys.data(), keys.size()), static_cast<ssize_t>(keys.size()));
    }
    // Reads what the terminal shows until it shows `text` (after what an earlier wait found); false when
    // it did not within a bound far above any run's (a hang).
    bool shows(const std::string& text) {
        const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
        while (shown_.find(text, seen_) == std::string::npos) {
            pollfd readable{terminal_, POLLIN, 0};
            if (std::chrono::steady_clock::now() > deadline || poll(&readable, 1, 1000) < 0) {
                return false;
            }
            char buffer[4096];
            const ssize_t count = readable.revents != 0 ? read(terminal_, buffer, sizeof buffer) : 0;
            if (count < 0) {
                return false;
            }
            shown_.append(buffer, static_cast<size_t>(count));
        }
        seen_ = shown_.find(text, seen_) + text.size();
        return true;
    }
    const std::string& shown() const { return shown_; }

private:
    int terminal_ = -1;
    pid_t child_ = -1;
    std::string shown_;
    size_t seen_ = 0;
};

// Ctrl-Z stops the whole job, hermit and its guest, as a shell's job stops; `fg` continues it, and the
// guest reads what is typed then. A recording stopped that way replays.
TEST_F(InteractiveTest, CtrlZStopsTheJobAndFgContinuesIt) {
    for (const std::string mode : {"run", "record start"}) {
        ShellInTerminal shell;
        shell.type(hermit_binary() + " " + mode + " -- sh -c 'echo ready; read x; echo got:$x'\n");
        ASSERT_TRUE(shell.shows("\r\nready\r\n")) << shell.shown();
        shell.type("\x1a");
        ASSERT_TRUE(shell.shows("Stopped")) << shell.shown();
        ASSERT_TRUE(shell.shows("$ ")) << shell.shown();
        shell.type("fg\n");
        shell.type("typed\n");
        ASSERT_TRUE(shell.shows("got:typed")) << shell.shown();
        shell.type("echo status:$?\n");
        EXPECT_TRUE(shell.shows("status:0")) << shell.shown();
    }
    const ProcessResult replayed = run_process({hermit_binary(), "replay", "--autopilot"});
    EXPECT_EQ(replayed.exit_status, 0) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "ready\ngot:typed\n");
}

// Whether `pid` sleeps in a read of its stdin (the kernel's view: state S, syscall 0 on descriptor 0).
bool waits_in_read_of_stdin(pid_t pid) {
    std::ifstream status_file("/proc/" + std::to_string(pid) + "/stat");
    std::string status((std::istreambuf_iterator<char>(status_file)), {});
    const size_t name_end = status.rfind(')');
    std::ifstream syscall_file("/proc/" + std::to_string(pid) + "/syscall");
    std::string number, first_argument;
    syscall_file >> number >> first_argument;
    return name_end != std::string::npos && status.compare(name_end + 2, 1, "S") == 0 && number == "0" &&
           first_argument == "0x0";
}

// hermit killed outright while its guest waits for input (a server killed with kill -9): the recording
// is unfinished but holds what happened up to the wait, and its replay shows that and says where it ends.
TEST_F(InteractiveTest, ARecordingWhoseHermitWasKilledReplaysToItsLastEvent) {
    const auto kill_hermit_once_the_guest_waits = [](pid_t hermit, int) {
        const pid_t guest = guest_of(hermit);
        ASSERT_GT(guest, 0);
        // The recorder writes its events before letting the guest wait: a state, not a time, to wait for.
        for (int tries = 0; tries < 6000 && !waits_in_read_of_stdin(guest); ++tries) {
            usleep(10'000);
        }
        ASSERT_TRUE(waits_in_read_of_stdin(guest));
        kill(hermit, SIGKILL);
    };
    const Finished recorded =
        run_with_input({hermit_binary(), "record", "start", "--", guest_path("interactive_signals")},
                       "ready\n", kill_hermit_once_the_guest_waits);
    EXPECT_EQ(recorded.exit_status, 128 + SIGKILL);
    EXPECT_EQ(recorded.output, "ready\n");
    const ProcessResult listed = run_process({hermit_binary(), "record", "list"});
    EXPECT_NE(listed.stdout_text.find("unfinished"), std::string::npos) << listed.stdout_text;
    const ProcessResult replayed = replay(); // `latest` is the unfinished recording
    EXPECT_EQ(replayed.exit_status, 4) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "ready\n") << replayed.stderr_text;
    EXPECT_NE(replayed.stderr_text.find("E042"), std::string::npos) << replayed.stderr_text;
}

// A recording ended by `timeout` (SIGTERM to hermit, which passes it on) is complete: it replays.
TEST_F(InteractiveTest, ARecordingStoppedByTimeoutReplays) {
    const Finished recorded = signalled_after({"timeout", "-s", "TERM", "1", hermit_binary(), "record",
                                               "start", "--", guest_path("interactive_signals")},
                                              "", 0);
    EXPECT_EQ(recorded.exit_status, 124) << "timeout's own status when it had to stop the command";
    EXPECT_EQ(recorded.output, "ready\ngot SIGTERM\n");
    const ProcessResult replayed = replay();
    EXPECT_EQ(replayed.exit_status, 43) << replayed.stderr_text;
    EXPECT_EQ(replayed.stdout_text, "ready\ngot SIGTERM\n") << replayed.stderr_text;
}

} // namespace
} // namespace hermit::testing
