#include "TestRecordings.h"

#include "gui/GuiLauncher.h"

#include "formats/Error.h"

#include <QImage>

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace hermit::gui {
namespace {

class GuiLauncherTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::write_recording(directory_.path() / "a", testing::four_thread_events());
        auto events = testing::four_thread_events();
        events.pop_back();
        testing::write_recording(directory_.path() / "b", events);
    }
    testing::TemporaryDirectory directory_;
};

TEST_F(GuiLauncherTest, ScreenshotOfOneRecordingHasTheRequestedSize) {
    GuiRequest request;
    request.recordings = {directory_.path() / "a"};
    request.screenshot = directory_.path() / "main.png";
    EXPECT_EQ(run_gui(request), 0);
    const QImage image(QString::fromStdString(request.screenshot->string()));
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.size(), QSize(1400, 800));
}

TEST_F(GuiLauncherTest, ScreenshotOfADiff) {
    GuiRequest request;
    request.recordings = {directory_.path() / "a", directory_.path() / "b"};
    request.diff = true;
    request.screenshot = directory_.path() / "diff.png";
    request.screenshot_width = 1000;
    request.screenshot_height = 600;
    EXPECT_EQ(run_gui(request), 0);
    EXPECT_EQ(QImage(QString::fromStdString(request.screenshot->string())).size(), QSize(1000, 600));
}

TEST_F(GuiLauncherTest, ABadRecordingFailsWithTheFormatsError) {
    const auto broken = directory_.path() / "broken";
    std::filesystem::create_directory(broken);
    std::ofstream(broken / "meta.capnp.bin") << "garbage";
    GuiRequest request;
    request.recordings = {broken};
    request.screenshot = directory_.path() / "never.png";
    try {
        run_gui(request);
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(error.exit_status(), 3);
        EXPECT_EQ(error_info(error.code()).code.substr(0, 3), "E03");
    }
    EXPECT_FALSE(std::filesystem::exists(*request.screenshot));
}

TEST_F(GuiLauncherTest, AnUnwritableScreenshotIsAnExportError) {
    GuiRequest request;
    request.screenshot = directory_.path() / "no-such-directory" / "out.png";
    try {
        run_gui(request);
        FAIL() << "no error";
    } catch (const Error& error) {
        EXPECT_EQ(error.code(), ErrorCode::ExportFailed);
    }
}

TEST(DisplayProblem, NoDisplayIsReported) {
    const std::string platform = std::getenv("QT_QPA_PLATFORM") ? std::getenv("QT_QPA_PLATFORM") : "";
    const char* display = std::getenv("DISPLAY");
    const std::string saved_display = display ? display : "";
    unsetenv("QT_QPA_PLATFORM");
    unsetenv("WAYLAND_DISPLAY");
    unsetenv("DISPLAY");
    EXPECT_NE(display_problem().find("no display"), std::string::npos);
    setenv("DISPLAY", ":4711", 1);
    EXPECT_NE(display_problem().find("/tmp/.X11-unix/X4711"), std::string::npos);
    unsetenv("DISPLAY");
    setenv("QT_QPA_PLATFORM", "offscreen", 1);
    EXPECT_EQ(display_problem(), "");
    if (!saved_display.empty()) {
        setenv("DISPLAY", saved_display.c_str(), 1);
    }
    if (platform.empty()) {
        unsetenv("QT_QPA_PLATFORM");
    } else {
        setenv("QT_QPA_PLATFORM", platform.c_str(), 1);
    }
}

} // namespace
} // namespace hermit::gui
