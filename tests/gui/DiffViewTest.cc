#include "TestRecordings.h"

#include "gui/DiffView.h"

#include "formats/ScheduleDiff.h"

#include <QImage>
#include <QSignalSpy>

#include <gtest/gtest.h>

namespace hermit::gui {
namespace {

constexpr int kLoadTimeoutMs = 20000;

// The same run, except that at event 12 the scheduler picked tid 12 instead of tid 10.
std::vector<Event> rescheduled_events() {
    std::vector<Event> events = testing::four_thread_events();
    EXPECT_TRUE(std::holds_alternative<ScheduleEvent>(events[12].payload));
    events[12].tid = 12;
    events[12].pid = 10;
    events[13].tid = 12;
    events[13].pid = 10;
    return events;
}

class DiffViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::write_recording(directory_.path() / "a", testing::four_thread_events());
        testing::write_recording(directory_.path() / "b", rescheduled_events());
        a_ = load_recording(directory_.path() / "a");
        b_ = load_recording(directory_.path() / "b");
        view_.resize(1200, 700);
    }

    testing::TemporaryDirectory directory_;
    std::shared_ptr<const LoadedRecording> a_;
    std::shared_ptr<const LoadedRecording> b_;
    DiffView view_;
};

TEST_F(DiffViewTest, MarksTheDivergenceThatScheduleDiffFinds) {
    view_.setRecordings(a_, b_);
    const ScheduleDiffResult expected = diff_events(a_->events.all(), b_->events.all());
    ASSERT_TRUE(expected.divergence);
    EXPECT_EQ(expected.divergence->index, 12u);
    EXPECT_EQ(view_.divergenceIndex(), expected.divergence->index);
    EXPECT_EQ(view_.topView()->divergenceEvents(), std::vector<uint64_t>{12});
    EXPECT_EQ(view_.bottomView()->divergenceEvents(), std::vector<uint64_t>{12});
    EXPECT_EQ(view_.topView()->divergenceTime(), 50.0);
    EXPECT_TRUE(view_.summaryText().contains(QStringLiteral("event 12")))
        << view_.summaryText().toStdString();
    EXPECT_TRUE(view_.summaryText().contains(QString::fromStdString(expected.divergence->reason)));
}

TEST_F(DiffViewTest, BothViewsShareOneTimeAxisAndShowTheRedLine) {
    view_.setRecordings(a_, b_);
    view_.topView()->viewport()->zoom(2, 50);
    EXPECT_EQ(view_.topView()->viewport(), view_.bottomView()->viewport());
    EXPECT_DOUBLE_EQ(view_.bottomView()->timeAt(view_.bottomView()->xOf(42)), 42);

    view_.zoomToFit();
    const QImage top = view_.topView()->grab().toImage();
    const int x = static_cast<int>(view_.topView()->xOf(50));
    EXPECT_EQ(top.pixelColor(x, 3), QColor(0xe0, 0x10, 0x10));
    EXPECT_NE(top.pixelColor(x + 20, 3), QColor(0xe0, 0x10, 0x10));
}

TEST_F(DiffViewTest, EventOrderPutsTheDivergenceAtItsIndex) {
    view_.setRecordings(a_, b_);
    view_.setTimeAxis(TimeAxis::EventOrder);
    EXPECT_EQ(view_.topView()->model()->axis(), TimeAxis::EventOrder);
    EXPECT_EQ(view_.topView()->divergenceTime(), 12.0);
    EXPECT_EQ(view_.bottomView()->divergenceEvents(), std::vector<uint64_t>{12});
}

TEST_F(DiffViewTest, IdenticalRecordingsHaveNoDivergence) {
    view_.setRecordings(a_, a_);
    EXPECT_FALSE(view_.divergenceIndex());
    EXPECT_TRUE(view_.topView()->divergenceEvents().empty());
    EXPECT_TRUE(view_.summaryText().contains(QStringLiteral("equivalent")));
}

TEST_F(DiffViewTest, OpensBothRecordingsOffTheGuiThread) {
    QSignalSpy changed(&view_, &DiffView::recordingsChanged);
    view_.openRecordings(QString::fromStdString((directory_.path() / "a").string()),
                         QString::fromStdString((directory_.path() / "b").string()));
    ASSERT_TRUE(changed.wait(kLoadTimeoutMs));
    EXPECT_EQ(view_.divergenceIndex(), 12u);
}

} // namespace
} // namespace hermit::gui
