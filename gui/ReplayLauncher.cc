#include "ReplayLauncher.h"

#include <QRegularExpression>

namespace hermit::gui {

namespace {

constexpr int kHelpTimeoutMs = 5000;

QString shell_quoted(const QString& word) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./=:+-]+$"));
    if (plain.match(word).hasMatch()) {
        return word;
    }
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

} // namespace

ReplayLauncher::ReplayLauncher(QString hermit_executable, QObject* parent)
    : QObject(parent), hermit_executable_(std::move(hermit_executable)) {
    process_.setProcessChannelMode(QProcess::MergedChannels);
    connect(&process_, &QProcess::readyRead, this,
            [this] { emit output(QString::fromLocal8Bit(process_.readAll())); });
    connect(&process_, &QProcess::finished, this, [this](int exit_code) { emit finished(exit_code); });
    connect(&process_, &QProcess::errorOccurred, this, [this](QProcess::ProcessError error) {
        if (error == QProcess::FailedToStart) {
            emit output(tr("cannot start %1: %2\n").arg(hermit_executable_, process_.errorString()));
        }
    });
}

QStringList ReplayLauncher::arguments(const QString& directory, uint64_t event_index) {
    return {QStringLiteral("replay"), directory, QStringLiteral("--goto-event=%1").arg(event_index)};
}

QString ReplayLauncher::commandLine(const QString& directory, uint64_t event_index) const {
    QStringList words{shell_quoted(hermit_executable_)};
    for (const QString& argument : arguments(directory, event_index)) {
        words << shell_quoted(argument);
    }
    return words.join(QLatin1Char(' '));
}

bool ReplayLauncher::supportsGotoEvent() {
    if (!supports_goto_event_) {
        QProcess help;
        help.setProcessChannelMode(QProcess::MergedChannels);
        help.start(hermit_executable_, {QStringLiteral("replay"), QStringLiteral("--help")});
        const bool answered = help.waitForFinished(kHelpTimeoutMs);
        supports_goto_event_ = answered && help.readAll().contains("--goto-event");
    }
    return *supports_goto_event_;
}

void ReplayLauncher::start(const QString& directory, uint64_t event_index) {
    if (isRunning()) {
        process_.kill();
        process_.waitForFinished();
    }
    emit output(QStringLiteral("$ %1\n").arg(commandLine(directory, event_index)));
    process_.start(hermit_executable_, arguments(directory, event_index));
}

} // namespace hermit::gui
