// "Debug from here": the exact command lines, the terminal lookup, the gdb line parser, and ReplayLauncher
// starting a real program as the terminal emulator.
#include "TestRecordings.h"

#include "gui/DebugCommand.h"
#include "gui/ReplayLauncher.h"

#include <QSignalSpy>

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

namespace hermit::gui {
namespace {

const QString kHermit = QStringLiteral("/usr/bin/hermit");
const QString kDirectory = QStringLiteral("/data/rec 1");

// An executable shell script `name` in `directory` that writes its arguments, one a line, to `log`.
QString write_argument_logger(const std::filesystem::path& directory, const std::string& name,
                              const std::filesystem::path& log) {
    const auto path = directory / name;
    std::ofstream(path) << "#!/bin/sh\nfor a in \"$@\"; do printf '%s\\n' \"$a\"; done > '" << log.string()
                        << "'\n";
    std::filesystem::permissions(path, std::filesystem::perms::owner_all);
    return QString::fromStdString(path.string());
}

QProcessEnvironment environment_with(const QString& path, const QString& terminal = {}) {
    QProcessEnvironment environment;
    environment.insert(QStringLiteral("PATH"), path);
    if (!terminal.isEmpty()) {
        environment.insert(QStringLiteral("TERMINAL"), terminal);
    }
    return environment;
}

TEST(DebugCommand, WithoutTerminalHermitServesGdb) {
    const DebugCommand command = debug_command(kHermit, kDirectory, 42, {});
    EXPECT_TRUE(command.serve_only);
    EXPECT_EQ(command.program, kHermit);
    EXPECT_EQ(command.arguments,
              (QStringList{QStringLiteral("replay"), kDirectory, QStringLiteral("--goto-event=42"),
                           QStringLiteral("--serve-only")}));
}

TEST(DebugCommand, WithTerminalGdbRunsInIt) {
    const DebugCommand command = debug_command(kHermit, kDirectory, 7, QStringLiteral("/usr/bin/xterm"));
    EXPECT_FALSE(command.serve_only);
    EXPECT_EQ(command.program, QStringLiteral("/usr/bin/xterm"));
    EXPECT_EQ(command.arguments, (QStringList{QStringLiteral("-e"), kHermit, QStringLiteral("replay"),
                                              kDirectory, QStringLiteral("--goto-event=7")}));
    EXPECT_EQ(shell_command_line(command.program, command.arguments),
              QStringLiteral("/usr/bin/xterm -e /usr/bin/hermit replay '/data/rec 1' --goto-event=7"));
}

TEST(DebugCommand, FindsTheConfiguredTerminalThenTheDebianDefault) {
    testing::TemporaryDirectory bin;
    const QString path = QString::fromStdString(bin.path().string());
    EXPECT_TRUE(find_terminal(environment_with(path, QStringLiteral("my-term"))).isEmpty());
    const QString mine = write_argument_logger(bin.path(), "my-term", bin.path() / "log");
    EXPECT_EQ(find_terminal(environment_with(path, QStringLiteral("my-term"))), mine);
    EXPECT_TRUE(find_terminal(environment_with(path)).isEmpty());
    const QString debian = write_argument_logger(bin.path(), "x-terminal-emulator", bin.path() / "log");
    EXPECT_EQ(find_terminal(environment_with(path)), debian);
    EXPECT_EQ(find_terminal(environment_with(path, QStringLiteral("absent-term"))), debian);
}

TEST(DebugCommand, FindsTheGdbLineInServeOnlyOutput) {
    EXPECT_FALSE(gdb_connect_command(QStringLiteral("hermit: replaying to event 3\n")));
    const auto line =
        gdb_connect_command(QStringLiteral("hermit: replaying\nhermit: gdbserver listening; connect with: "
                                           "gdb /tmp/g -ex 'target remote :40123'\n"));
    ASSERT_TRUE(line);
    EXPECT_EQ(*line, QStringLiteral("gdb /tmp/g -ex 'target remote :40123'"));
}

TEST(ReplayLauncher, StartsTheTerminalWithTheReplayCommand) {
    testing::TemporaryDirectory bin;
    const auto log = bin.path() / "arguments";
    const QString terminal = write_argument_logger(bin.path(), "terminal", log);
    ReplayLauncher launcher(kHermit, terminal);
    QSignalSpy finished(&launcher, &ReplayLauncher::finished);
    QSignalSpy gdb(&launcher, &ReplayLauncher::gdbCommandReady);
    launcher.start(kDirectory, 5);
    ASSERT_TRUE(finished.wait(10000));
    EXPECT_EQ(finished.front().front().toInt(), 0);
    std::stringstream arguments;
    arguments << std::ifstream(log).rdbuf();
    EXPECT_EQ(arguments.str(), "-e\n/usr/bin/hermit\nreplay\n/data/rec 1\n--goto-event=5\n");
    EXPECT_TRUE(gdb.isEmpty());
}

} // namespace
} // namespace hermit::gui
