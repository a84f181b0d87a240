#include "GuiLauncher.h"

#include "DiffView.h"
#include "MainWindow.h"

#include "formats/Error.h"
#include "formats/Logging.h"
#include "formats/Recording.h"

#include <QApplication>
#include <QPixmap>

#include <spdlog/spdlog.h>

#include <cstdlib>
#include <memory>
#include <string_view>

namespace hermit::gui {

namespace {

std::string environment(const char* name) {
    const char* value = std::getenv(name);
    return value ? value : "";
}

// ":1" or ":1.0" names a local X server listening on /tmp/.X11-unix/X1; "host:1" is remote (ssh -X).
std::string x_display_problem(const std::string& display) {
    if (display.front() != ':') {
        return {};
    }
    const std::string number = display.substr(1, display.find('.') - 1);
    if (std::filesystem::exists("/tmp/.X11-unix/X" + number)) {
        return {};
    }
    return "DISPLAY is " + display + " but no X server listens on /tmp/.X11-unix/X" + number;
}

std::string wayland_display_problem(const std::string& display) {
    const std::filesystem::path socket =
        display.front() == '/' ? std::filesystem::path(display)
                               : std::filesystem::path(environment("XDG_RUNTIME_DIR")) / display;
    return std::filesystem::exists(socket)
               ? std::string()
               : "WAYLAND_DISPLAY is " + display + " but " + socket.string() + " does not exist";
}

gui::SyscallNameLookup qt_lookup(const hermit::SyscallNameLookup& names) {
    if (!names) {
        return {};
    }
    return [names](int number) { return QString::fromStdString(names(number)); };
}

// Qt's own messages (platform plugin notes, missing XDG_RUNTIME_DIR...) go through spdlog like hermit's
// diagnostics; its warnings are rarely about hermit, so they show from --log=debug.
void log_qt_message(QtMsgType type, const QMessageLogContext&, const QString& message) {
    const std::string text = message.toStdString();
    switch (type) {
    case QtCriticalMsg:
    case QtFatalMsg:
        spdlog::error("qt: {}", text);
        break;
    case QtInfoMsg:
        spdlog::info("qt: {}", text);
        break;
    default:
        spdlog::debug("qt: {}", text);
    }
}

QApplication& application(std::unique_ptr<QApplication>& owned) {
    if (auto* existing = qobject_cast<QApplication*>(QCoreApplication::instance())) {
        return *existing;
    }
    // QApplication keeps references to argc and argv for its whole life.
    static int argc = 1;
    static char name[] = "hermit";
    static char* argv[] = {name, nullptr};
    qInstallMessageHandler(log_qt_message);
    owned = std::make_unique<QApplication>(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("hermit"));
    QCoreApplication::setApplicationName(QStringLiteral("hermit-gui"));
    return *owned;
}

int save_screenshot(QWidget& window, const GuiRequest& request) {
    window.setAttribute(Qt::WA_DontShowOnScreen);
    window.resize(request.screenshot_width, request.screenshot_height);
    window.show();
    // Lets the layouts settle; nothing else runs.
    QCoreApplication::processEvents();
    const QString path = QString::fromStdString(request.screenshot->string());
    if (!window.grab().save(path, "PNG")) {
        throw Error(ErrorCode::ExportFailed, request.screenshot->string(), "cannot write a PNG file there");
    }
    return 0;
}

} // namespace

std::string display_problem() {
    if (!environment("QT_QPA_PLATFORM").empty()) {
        return {};
    }
    const std::string wayland = environment("WAYLAND_DISPLAY");
    if (!wayland.empty() && wayland_display_problem(wayland).empty()) {
        return {};
    }
    const std::string x = environment("DISPLAY");
    if (!x.empty()) {
        return x_display_problem(x);
    }
    if (!wayland.empty()) {
        return wayland_display_problem(wayland);
    }
    return "no display (DISPLAY and WAYLAND_DISPLAY are unset); use --screenshot=FILE or "
           "QT_QPA_PLATFORM=offscreen";
}

int run_gui(const GuiRequest& request) {
    log_to_stderr(request.log_level);
    if (request.diff ? request.recordings.size() != 2 : request.recordings.size() > 1) {
        throw Error(ErrorCode::UsageError,
                    request.diff ? "--diff takes two recordings" : "give at most one recording");
    }
    // Recordings are checked before any window exists, so a bad one fails like any other command.
    std::vector<std::shared_ptr<const LoadedRecording>> loaded;
    for (const auto& directory : request.recordings) {
        if (request.screenshot) {
            loaded.push_back(load_recording(directory));
        } else {
            [[maybe_unused]] const RecordingReader reader(directory);
        }
    }
    if (request.screenshot) {
        if (environment("QT_QPA_PLATFORM").empty()) {
            setenv("QT_QPA_PLATFORM", "offscreen", 1);
        }
    } else if (std::string problem = display_problem(); !problem.empty()) {
        throw Error(ErrorCode::GuiUnavailable, problem);
    }

    std::unique_ptr<QApplication> owned_application;
    QApplication& app = application(owned_application);
    const SyscallNameLookup names = qt_lookup(request.syscall_names);

    std::unique_ptr<QWidget> window;
    if (request.diff) {
        auto diff = std::make_unique<DiffView>(names);
        diff->setWindowTitle(QObject::tr("hermit - diff"));
        diff->setTimeAxis(request.event_order ? TimeAxis::EventOrder : TimeAxis::LogicalTime);
        if (request.screenshot) {
            diff->setRecordings(loaded[0], loaded[1]);
        } else {
            diff->openRecordings(QString::fromStdString(request.recordings[0].string()),
                                 QString::fromStdString(request.recordings[1].string()));
        }
        window = std::move(diff);
    } else {
        auto main = std::make_unique<MainWindow>(names, QCoreApplication::applicationFilePath());
        main->setTimeAxis(request.event_order ? TimeAxis::EventOrder : TimeAxis::LogicalTime);
        if (request.screenshot && !loaded.empty()) {
            main->setRecording(loaded[0]);
        } else if (!request.recordings.empty()) {
            main->openRecording(QString::fromStdString(request.recordings[0].string()));
        }
        window = std::move(main);
    }

    if (request.screenshot) {
        return save_screenshot(*window, request);
    }
    window->resize(1400, 850);
    window->show();
    return app.exec();
}

} // namespace hermit::gui
