#pragma once
// ReplayLauncher: runs the DebugCommand of "Debug from here" as a child process and forwards its output.
// Without a terminal emulator hermit only serves gdb, and gdbCommandReady() hands over the command the user
// has to type to connect.

#include "DebugCommand.h"

#include <QObject>
#include <QProcess>

#include <cstdint>

namespace hermit::gui {

class ReplayLauncher : public QObject {
    Q_OBJECT
public:
    // `terminal`: a terminal emulator for gdb (find_terminal()), or empty to serve gdb without one.
    ReplayLauncher(QString hermit_executable, QString terminal, QObject* parent = nullptr);
    ~ReplayLauncher() override;

    DebugCommand command(const QString& directory, uint64_t event_index) const;
    bool isRunning() const { return process_.state() != QProcess::NotRunning; }
    // Stops a replay that still runs, then starts the new one.
    void start(const QString& directory, uint64_t event_index);
    void stop();

signals:
    void output(const QString& text);
    // The `gdb ... -ex 'target remote :PORT'` line of a replay started without a terminal.
    void gdbCommandReady(const QString& command);
    void finished(int exit_code);

private:
    QString hermit_executable_;
    QString terminal_;
    bool waiting_for_gdb_command_ = false;
    QString output_so_far_;
    QProcess process_;
};

} // namespace hermit::gui
