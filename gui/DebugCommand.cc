#include "DebugCommand.h"

#include <QRegularExpression>
#include <QStandardPaths>

namespace hermit::gui {

namespace {

QString shell_quoted(const QString& word) {
    static const QRegularExpression plain(QStringLiteral("^[A-Za-z0-9_./=:+-]+$"));
    if (plain.match(word).hasMatch()) {
        return word;
    }
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QStringLiteral("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString program_in_path(const QString& name, const QProcessEnvironment& environment) {
    if (name.isEmpty()) {
        return {};
    }
    const QStringList path =
        environment.value(QStringLiteral("PATH")).split(QLatin1Char(':'), Qt::SkipEmptyParts);
    return QStandardPaths::findExecutable(name, path);
}

} // namespace

DebugCommand debug_command(const QString& hermit_executable, const QString& directory, uint64_t event_index,
                           const QString& terminal) {
    const QStringList replay{QStringLiteral("replay"), directory,
                             QStringLiteral("--goto-event=%1").arg(event_index)};
    if (terminal.isEmpty()) {
        return DebugCommand{hermit_executable, replay + QStringList{QStringLiteral("--serve-only")}, true};
    }
    return DebugCommand{terminal, QStringList{QStringLiteral("-e"), hermit_executable} + replay, false};
}

QString find_terminal(const QProcessEnvironment& environment) {
    const QString configured = program_in_path(environment.value(QStringLiteral("TERMINAL")), environment);
    if (!configured.isEmpty()) {
        return configured;
    }
    return program_in_path(QStringLiteral("x-terminal-emulator"), environment);
}

std::optional<QString> gdb_connect_command(const QString& output) {
    static const QRegularExpression line(QStringLiteral("(gdb .*-ex 'target remote :\\d+')"));
    const QRegularExpressionMatch match = line.match(output);
    if (!match.hasMatch()) {
        return std::nullopt;
    }
    return match.captured(1);
}

QString shell_command_line(const QString& program, const QStringList& arguments) {
    QStringList words{shell_quoted(program)};
    for (const QString& argument : arguments) {
        words << shell_quoted(argument);
    }
    return words.join(QLatin1Char(' '));
}

} // namespace hermit::gui
