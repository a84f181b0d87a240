#include "ReplayLauncher.h"

namespace hermit::gui {

ReplayLauncher::ReplayLauncher(QString hermit_executable, QString terminal, QObject* parent)
    : QObject(parent), hermit_executable_(std::move(hermit_executable)), terminal_(std::move(terminal)) {
    process_.setProcessChannelMode(QProcess::MergedChannels);
    connect(&process_, &QProcess::readyRead, this, [this] {
        const QString text = QString::fromLocal8Bit(process_.readAll());
        emit output(text);
        if (waiting_for_gdb_command_) {
            output_so_far_ += text;
            if (auto gdb = gdb_connect_command(output_so_far_)) {
                waiting_for_gdb_command_ = false;
                output_so_far_.clear();
                emit gdbCommandReady(*gdb);
            }
        }
    });
    connect(&process_, &QProcess::finished, this, [this](int exit_code) { emit finished(exit_code); });
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            emit output(tr("cannot start %1: %2\n").arg(process_.program(), process_.errorString()));
        }
    });
}

ReplayLauncher::~ReplayLauncher() {
    // The replay (and its guest) must not outlive the window, and nothing may hear about its end.
    process_.disconnect(this);
    stop();
}

DebugCommand ReplayLauncher::command(const QString& directory, uint64_t event_index) const {
    return debug_command(hermit_executable_, directory, event_index, terminal_);
}

void ReplayLauncher::start(const QString& directory, uint64_t event_index) {
    stop();
    const DebugCommand debug = command(directory, event_index);
    waiting_for_gdb_command_ = debug.serve_only;
    output_so_far_.clear();
    emit output(QStringLiteral("$ %1\n").arg(shell_command_line(debug.program, debug.arguments)));
    process_.start(debug.program, debug.arguments);
}

void ReplayLauncher::stop() {
    if (isRunning()) {
        process_.kill();
        process_.waitForFinished();
    }
}

} // namespace hermit::gui
