// The GUI on real recordings of real guests, made by the real hermit binary: `record start` with chaos
// options and the schedule diff of a passing and a failing seed, the timeline and screenshot of a guest
// with four worker threads, and "Debug from here" serving gdb at the selected event.
#include "HermitProcess.h"

#include "gui/DiffView.h"
#include "gui/LoadedRecording.h"
#include "gui/ReplayLauncher.h"

#include "formats/Error.h"
#include "formats/Recording.h"

#include <QImage>
#include <QRegularExpression>
#include <QSignalSpy>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

namespace hermit::gui {
namespace {

using hermit::testing::guest_path;
using hermit::testing::hermit_binary;
using hermit::testing::ProcessResult;
using hermit::testing::run_process;

class GuiIntegrationTest : public ::testing::Test {
protected:
    GuiIntegrationTest() {
        std::string pattern = (std::filesystem::temp_directory_path() / "hermit-gui-it-XXXXXX").string();
        if (::mkdtemp(pattern.data()) == nullptr) {
            throw std::runtime_error("mkdtemp failed");
        }
        data_dir_ = pattern;
    }
    ~GuiIntegrationTest() override { std::filesystem::remove_all(data_dir_); }

    ProcessResult hermit(std::vector<std::string> arguments) {
        arguments.insert(arguments.begin(), hermit_binary());
        return run_process(arguments, "", 60, {"HERMIT_DATA_DIR=" + data_dir_.string()});
    }

    // Records `argv` under `name`; the recording is data_dir_/<name>-1.
    std::filesystem::path record(const std::string& name, const std::vector<std::string>& options,
                                 const std::vector<std::string>& argv, int* exit_status = nullptr) {
        std::vector<std::string> arguments{"record", "start", "--name", name};
        arguments.insert(arguments.end(), options.begin(), options.end());
        arguments.push_back("--");
        arguments.insert(arguments.end(), argv.begin(), argv.end());
        const ProcessResult result = hermit(arguments);
        EXPECT_NE(result.stderr_text.find("hermit: recorded " + name + "-1"), std::string::npos)
            << result.stderr_text;
        if (exit_status) {
            *exit_status = result.exit_status;
        }
        return data_dir_ / (name + "-1");
    }

    std::filesystem::path data_dir_;
};

TEST_F(GuiIntegrationTest, ChaosRecordingsOfAPassingAndAFailingSeedDivergeAtASchedulingDecision) {
    const std::string example = std::string(HERMIT_EXAMPLE_DIR) + "/order_violation";
    std::optional<std::filesystem::path> passing;
    std::optional<std::filesystem::path> failing;
    for (uint64_t seed = 1; seed <= 20 && !(passing && failing); ++seed) {
        int status = -1;
        const auto directory = record(
            "seed" + std::to_string(seed),
            {"--chaos", "--sched-heuristic=random", "--seed=" + std::to_string(seed)}, {example}, &status);
        RecordingReader reader(directory);
        EXPECT_TRUE(reader.meta().config.chaos);
        EXPECT_EQ(reader.meta().config.seed, seed);
        EXPECT_EQ(reader.meta().config.sched_heuristic, "random");
        EXPECT_EQ(reader.meta().exit_status, status);
        (status == 0 ? passing : failing) = directory;
    }
    ASSERT_TRUE(passing && failing) << "seeds 1..20 of order_violation do not both pass and fail";

    const ProcessResult diff = hermit({"diff", passing->string(), failing->string()});
    EXPECT_EQ(diff.exit_status, 5) << diff.stdout_text << diff.stderr_text;
    std::smatch match;
    ASSERT_TRUE(
        std::regex_search(diff.stdout_text, match,
                          std::regex("First divergence at event (\\d+): a different thread was scheduled")))
        << diff.stdout_text;

    DiffView view;
    view.setRecordings(load_recording(*passing), load_recording(*failing));
    ASSERT_TRUE(view.divergenceIndex());
    EXPECT_EQ(*view.divergenceIndex(), std::stoull(match[1].str()));
}

TEST_F(GuiIntegrationTest, FourWorkerThreadsGetOneLaneEachInTheModelAndTheScreenshot) {
    const auto directory = record("threads", {}, {guest_path("replay_threads")});
    ASSERT_TRUE(std::filesystem::exists(directory / "summary.hrec"));
    RecordingReader reader(directory);
    const std::vector<Event> events = reader.read_all();
    EXPECT_EQ(reader.event_columns(), columns_of_events(events));

    const auto recording = load_recording(directory);
    ASSERT_EQ(recording->timeline.lanes().size(), 5u); // main thread and four workers
    for (const ThreadLane& lane : recording->timeline.lanes()) {
        EXPECT_FALSE(lane.slices.empty()) << lane.name;
    }
    EXPECT_EQ(recording->events.at(events.size() - 1), events.back());

    const auto png = data_dir_ / "threads.png";
    const ProcessResult gui = hermit({"gui", directory.string(), "--screenshot=" + png.string()});
    ASSERT_EQ(gui.exit_status, 0) << gui.stderr_text;
    const QImage image(QString::fromStdString(png.string()));
    EXPECT_EQ(image.size(), QSize(1400, 800));
}

// The module reports its own errors: an exception thrown in it would abort hermit, which links its own
// libstdc++ (gui/GuiModule.cc).
TEST_F(GuiIntegrationTest, ACorruptRecordingFailsWithTheCatalogedErrorInsteadOfAnAbort) {
    const std::filesystem::path directory = data_dir_ / "garbage-1";
    std::filesystem::create_directories(directory);
    {
        std::ofstream meta(directory / "meta.capnp.bin", std::ios::binary);
        meta << "not a recording, just some bytes that Cap'n Proto cannot take for one";
    }
    const ProcessResult gui = run_process(
        {hermit_binary(), "gui", directory.string(), "--screenshot=" + (data_dir_ / "x.png").string()}, "",
        60, {"HERMIT_DATA_DIR=" + data_dir_.string(), "QT_QPA_PLATFORM=offscreen"});
    EXPECT_EQ(gui.exit_status, error_info(ErrorCode::RecordingCorrupt).exit_status) << gui.stderr_text;
    EXPECT_NE(gui.stderr_text.find("hermit: error[E031]"), std::string::npos) << gui.stderr_text;
}

TEST_F(GuiIntegrationTest, DebugFromHereWithoutTerminalServesGdbAtTheEvent) {
    if (run_process({"gdb", "--version"}).exit_status != 0) {
        GTEST_SKIP() << "gdb is not installed";
    }
    const auto directory = record("debug", {}, {guest_path("debug_threads")});
    const uint64_t event = RecordingReader(directory).meta().event_count / 2;

    ReplayLauncher launcher(QString::fromStdString(hermit_binary()), QString());
    ASSERT_TRUE(launcher.command(QString::fromStdString(directory.string()), event).serve_only);
    QSignalSpy ready(&launcher, &ReplayLauncher::gdbCommandReady);
    launcher.start(QString::fromStdString(directory.string()), event);
    ASSERT_TRUE(ready.wait(60000)) << "no gdb command from hermit replay --serve-only";
    const QString command = ready.front().front().toString();
    const QRegularExpressionMatch parts =
        QRegularExpression(QStringLiteral("^gdb (\\S+) -ex 'target remote :(\\d+)'$")).match(command);
    ASSERT_TRUE(parts.hasMatch()) << command.toStdString();

    const ProcessResult gdb =
        run_process({"gdb", "-batch", "-nx", parts.captured(1).toStdString(), "-ex",
                     "target remote :" + parts.captured(2).toStdString(), "-ex", "monitor when"});
    // gdb is connected to the replay ("monitor when" answers); where it stops is tests/gdbserver's subject.
    const std::string gdb_output = gdb.stdout_text + gdb.stderr_text;
    EXPECT_NE(gdb_output.find("Current event: "), std::string::npos) << gdb_output;
    launcher.stop();
    EXPECT_FALSE(launcher.isRunning());
}

} // namespace
} // namespace hermit::gui
