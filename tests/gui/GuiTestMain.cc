// GoogleTest main for the GUI tests: one QApplication on the offscreen platform for the whole run, and
// settings in Qt's test locations so no test touches the user's recent-recordings list.

#include <QApplication>
#include <QStandardPaths>

#include <gtest/gtest.h>

int main(int argc, char** argv) {
    // Also set by CTest; this covers running the binary by hand and test discovery.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) {
        qputenv("QT_QPA_PLATFORM", "offscreen");
    }
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QCoreApplication::setOrganizationName(QStringLiteral("hermit-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("gui-tests"));
    testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
