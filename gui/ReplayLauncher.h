#pragma once
// ReplayLauncher: "Debug from here". Starts `hermit replay <dir> --goto-event=N` as a child process without
// a terminal and forwards its output; checks first that this hermit's replay knows --goto-event.

#include <QObject>
#include <QProcess>
#include <QStringList>

#include <cstdint>
#include <optional>

namespace hermit::gui {

class ReplayLauncher : public QObject {
    Q_OBJECT
public:
    explicit ReplayLauncher(QString hermit_executable, QObject* parent = nullptr);

    static QStringList arguments(const QString& directory, uint64_t event_index);
    // The command as a user would type it in a shell.
    QString commandLine(const QString& directory, uint64_t event_index) const;
    // Whether `hermit replay --help` mentions --goto-event (asked once, then remembered).
    bool supportsGotoEvent();
    bool isRunning() const { return process_.state() != QProcess::NotRunning; }
    void start(const QString& directory, uint64_t event_index);

signals:
    void output(const QString& text);
    void finished(int exit_code);

private:
    QString hermit_executable_;
    std::optional<bool> supports_goto_event_;
    QProcess process_;
};

} // namespace hermit::gui
