#include "TestRecordings.h"

#include "gui/EventFilterProxyModel.h"
#include "gui/EventTableModel.h"
#include "gui/EventText.h"

#include <gtest/gtest.h>

namespace hermit::gui {
namespace {

class EventTableModelTest : public ::testing::Test {
protected:
    void SetUp() override {
        testing::write_recording(directory_.path() / "rec", testing::four_thread_events());
        recording_ = load_recording(directory_.path() / "rec");
        model_.setRecording(recording_);
        proxy_.setEventModel(&model_);
    }
    std::vector<int> filtered_event_indices() const {
        std::vector<int> rows;
        for (int row = 0; row < proxy_.rowCount(); ++row) {
            rows.push_back(proxy_.eventIndex(row));
        }
        return rows;
    }
    std::vector<int> indices_where(const std::function<bool(const Event&)>& keep) const {
        std::vector<int> rows;
        for (size_t i = 0; i < recording_->events.size(); ++i) {
            if (keep(recording_->events.at(i))) {
                rows.push_back(static_cast<int>(i));
            }
        }
        return rows;
    }

    testing::TemporaryDirectory directory_;
    std::shared_ptr<const LoadedRecording> recording_;
    EventTableModel model_{[](int number) { return number == 202 ? QStringLiteral("futex") : QString(); }};
    EventFilterProxyModel proxy_;
};

TEST_F(EventTableModelTest, OneRowPerEventWithItsColumns) {
    ASSERT_EQ(model_.rowCount(), static_cast<int>(recording_->events.size()));
    EXPECT_EQ(model_.columnCount(), EventTableModel::ColumnCount);
    // Event 7 is tid 11's first syscall at time 21.
    EXPECT_EQ(model_.index(7, EventTableModel::IndexColumn).data().toInt(), 7);
    EXPECT_EQ(model_.index(7, EventTableModel::TimeColumn).data().toULongLong(), 21u);
    EXPECT_EQ(model_.index(7, EventTableModel::PidColumn).data().toInt(), 11);
    EXPECT_EQ(model_.index(7, EventTableModel::TidColumn).data().toInt(), 11);
    EXPECT_EQ(model_.index(7, EventTableModel::KindColumn).data().toString(), QStringLiteral("syscall"));
    EXPECT_EQ(model_.index(7, EventTableModel::DescriptionColumn).data().toString(),
              QStringLiteral("futex(0x1, 0x2, 0x3) = 0"));
    EXPECT_EQ(model_.headerData(EventTableModel::TidColumn, Qt::Horizontal).toString(),
              QStringLiteral("TID"));
}

TEST_F(EventTableModelTest, UnknownSyscallsGetAFallbackName) {
    EventTableModel unnamed;
    unnamed.setRecording(recording_);
    EXPECT_EQ(unnamed.index(7, EventTableModel::DescriptionColumn).data().toString(),
              QStringLiteral("syscall 202(0x1, 0x2, 0x3) = 0"));
}

TEST_F(EventTableModelTest, FilterByThreadKeepsThatThreadsRows) {
    proxy_.setThreadFilter(11);
    const auto expected = indices_where([](const Event& e) { return e.tid == 11; });
    EXPECT_EQ(expected.size(), 7u);
    EXPECT_EQ(filtered_event_indices(), expected);
    EXPECT_EQ(proxy_.proxyRow(expected[2]), 2);
    EXPECT_EQ(proxy_.proxyRow(0), -1);
    proxy_.setThreadFilter(std::nullopt);
    EXPECT_EQ(proxy_.rowCount(), model_.rowCount());
}

TEST_F(EventTableModelTest, FilterByKindAndText) {
    proxy_.setKindFilter(QStringLiteral("schedule"));
    EXPECT_EQ(filtered_event_indices(),
              indices_where([](const Event& e) { return std::holds_alternative<ScheduleEvent>(e.payload); }));
    proxy_.setKindFilter(QString());
    proxy_.setTextFilter(QStringLiteral("SIGUSR1"));
    EXPECT_EQ(filtered_event_indices(),
              indices_where([](const Event& e) { return std::holds_alternative<SignalEvent>(e.payload); }));
    proxy_.setTextFilter(QStringLiteral("FUTEX"));
    proxy_.setThreadFilter(13);
    EXPECT_EQ(filtered_event_indices(), indices_where([](const Event& e) {
                  return e.tid == 13 && std::holds_alternative<SyscallEvent>(e.payload);
              }));
}

TEST(EventText, DecodesErrorsSignalsAndOutput) {
    const SyscallNameLookup names = [](int) { return QStringLiteral("openat"); };
    const Event failed{1, 2, 2, SyscallEvent{257, {0xffffff9c, 0x1000}, -2, false, {}, false, {}}};
    EXPECT_EQ(event_description(failed, names),
              QStringLiteral("openat(0xffffff9c, 0x1000) = -1 ENOENT (No such file or directory)"));
    const QString details = event_details(failed, 4, names);
    EXPECT_TRUE(details.contains(QStringLiteral("event: 4"))) << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("thread: pid 2 / tid 2"))) << details.toStdString();
    EXPECT_TRUE(details.contains(QStringLiteral("arg1: 0x1000 (4096)"))) << details.toStdString();

    const Event signal{1, 2, 2, SignalEvent{11, 1, 0, true}};
    EXPECT_EQ(event_description(signal, {}), QStringLiteral("SIGSEGV code 1 from pid 0 (fatal)"));
    const Event output{1, 2, 2, StdioEvent{1, {'h', 'i', '\n', 0x01, '%', '1'}}};
    EXPECT_EQ(event_description(output, {}), QStringLiteral("stdout 6 bytes \"hi\\n\\x01%1\""));
}

} // namespace
} // namespace hermit::gui
