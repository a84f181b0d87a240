#include "TestRecordings.h"

#include "gui/LoadedRecording.h"
#include "gui/TimelineView.h"

#include <QImage>
#include <QSignalSpy>
#include <QWheelEvent>
#include <QtTest/QTest>

#include <gtest/gtest.h>

namespace hermit::gui {
namespace {

// 1000 plot pixels for 100 ns: 10 pixels per ns.
constexpr int kPlotWidth = 1000;

class TimelineViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::write_recording(directory_.path() / "rec", testing::four_thread_events());
        recording_ = load_recording(directory_.path() / "rec");
        view_.setModel(std::shared_ptr<const TimelineModel>(recording_, &recording_->timeline));
        view_.resize(TimelineView::kLabelWidth + kPlotWidth, view_.minimumSizeHint().height());
    }
    size_t lane(int32_t tid) const { return recording_->timeline.lane_of_tid(tid).value(); }
    int barY(size_t lane) const {
        return view_.laneRect(lane).top() + (TimelineView::kBarTop + TimelineView::kBarBottom) / 2;
    }
    int tickY(size_t lane) const {
        return view_.laneRect(lane).top() + (TimelineView::kTickTop + TimelineView::kTickBottom) / 2;
    }
    int xAt(double time) const { return static_cast<int>(view_.xOf(time)); }

    testing::TemporaryDirectory directory_;
    std::shared_ptr<const LoadedRecording> recording_;
    TimelineView view_;
};

TEST_F(TimelineViewTest, EachLaneRowShowsBarsWhereItsThreadRan) {
    const QImage image = view_.grab().toImage();
    ASSERT_EQ(image.width(), TimelineView::kLabelWidth + kPlotWidth);
    ASSERT_EQ(image.height(), TimelineView::kRulerHeight + 4 * TimelineView::kLaneHeight + 1);
    for (const auto& slice : testing::four_thread_schedule()) {
        const size_t row = lane(slice.tid);
        const double middle = (slice.begin + slice.end) / 2.0;
        EXPECT_EQ(image.pixelColor(xAt(middle), barY(row)), TimelineView::laneColor(row))
            << "tid " << slice.tid << " at " << middle;
        // Every other lane is idle then.
        for (size_t other = 0; other < 4; ++other) {
            if (other != row) {
                EXPECT_EQ(image.pixelColor(xAt(middle), barY(other)), TimelineView::backgroundColor(other))
                    << "lane " << other << " at " << middle;
            }
        }
    }
}

TEST_F(TimelineViewTest, MarksAreTicksAboveTheBar) {
    const QImage image = view_.grab().toImage();
    // SIGUSR1 to tid 11 at 66 (with a syscall at the same time: the signal wins the column).
    EXPECT_EQ(image.pixelColor(xAt(66), tickY(lane(11))), TimelineView::markColor(MarkKind::Signal));
    EXPECT_EQ(image.pixelColor(xAt(51), tickY(lane(10))), TimelineView::markColor(MarkKind::Syscall));
    EXPECT_EQ(image.pixelColor(xAt(55), tickY(lane(10))), TimelineView::backgroundColor(lane(10)));
}

TEST_F(TimelineViewTest, ClickSelectsTheEventUnderTheCursor) {
    QSignalSpy clicked(&view_, &TimelineView::eventClicked);
    // On tid 10's syscall at 51.
    QTest::mouseClick(&view_, Qt::LeftButton, {}, QPoint(xAt(51), barY(lane(10))));
    ASSERT_EQ(clicked.count(), 1);
    const auto index = clicked.at(0).at(0).value<quint64>();
    EXPECT_EQ(recording_->events.at(index).time, 51u);
    EXPECT_TRUE(std::holds_alternative<SyscallEvent>(recording_->events.at(index).payload));
    EXPECT_EQ(view_.selectedEvent(), index);
    // In the middle of tid 13's long slice: its Schedule event.
    QTest::mouseClick(&view_, Qt::LeftButton, {}, QPoint(xAt(85), barY(lane(13))));
    ASSERT_EQ(clicked.count(), 2);
    EXPECT_EQ(clicked.at(1).at(0).value<quint64>(),
              recording_->timeline.lanes()[lane(13)].slices[1].event_index);
}

TEST_F(TimelineViewTest, SelectionIsDrawnOnTheEvent) {
    const uint64_t signal = 18;
    ASSERT_TRUE(std::holds_alternative<SignalEvent>(recording_->events.at(signal).payload));
    view_.setSelectedEvent(signal);
    const QImage image = view_.grab().toImage();
    EXPECT_EQ(image.pixelColor(xAt(66), barY(lane(11))), QColor(0x10, 0x10, 0x10));
}

TEST_F(TimelineViewTest, WheelZoomsAroundTheCursorAndDragPans) {
    TimelineViewport* viewport = view_.viewport();
    const QPointF cursor(xAt(30), barY(0));
    QWheelEvent wheel(cursor, view_.mapToGlobal(cursor), QPoint(), QPoint(0, 240), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QCoreApplication::sendEvent(&view_, &wheel);
    EXPECT_LT(viewport->span(), 100);
    EXPECT_NEAR(view_.timeAt(cursor.x()), 30, 0.01);

    const double begin = viewport->begin();
    QTest::mousePress(&view_, Qt::LeftButton, {}, QPoint(600, barY(0)));
    QMouseEvent move(QEvent::MouseMove, QPointF(500, barY(0)), view_.mapToGlobal(QPointF(500, barY(0))),
                     Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
    QCoreApplication::sendEvent(&view_, &move);
    QTest::mouseRelease(&view_, Qt::LeftButton, {}, QPoint(500, barY(0)));
    EXPECT_NEAR(viewport->begin(), begin + 100 * viewport->span() / kPlotWidth, 1e-6);

    view_.zoomToFit();
    EXPECT_DOUBLE_EQ(viewport->begin(), 0);
    EXPECT_DOUBLE_EQ(viewport->end(), 100);
}

} // namespace
} // namespace hermit::gui
