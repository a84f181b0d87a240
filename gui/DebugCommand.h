#pragma once
// DebugCommand: the process "Debug from here" starts to put gdb at an event. gdb needs a terminal, so with
// a terminal emulator it is `TERMINAL -e hermit replay DIR --goto-event=N` (-e: the Debian
// x-terminal-emulator convention, which xterm, urxvt, alacritty and konsole follow); without one it is
// `hermit replay DIR --goto-event=N --serve-only`, which waits for gdb and prints the command to connect
// (gdb_connect_command finds it in the output). Pure functions, so the exact argv is tested offscreen.

#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

#include <cstdint>
#include <optional>

namespace hermit::gui {

struct DebugCommand {
    QString program;
    QStringList arguments;
    bool serve_only = false; // no terminal: show the user the gdb command hermit prints
};

// `terminal` is a terminal emulator program, or empty for none.
DebugCommand debug_command(const QString& hermit_executable, const QString& directory, uint64_t event_index,
                           const QString& terminal);

// $TERMINAL when it names a program found in PATH, else x-terminal-emulator when installed, else empty.
QString find_terminal(const QProcessEnvironment& environment);

// The `gdb ... -ex 'target remote :PORT'` line of `hermit replay --serve-only`, once `output` holds it.
std::optional<QString> gdb_connect_command(const QString& output);

// The command as a user would type it in a shell.
QString shell_command_line(const QString& program, const QStringList& arguments);

} // namespace hermit::gui
