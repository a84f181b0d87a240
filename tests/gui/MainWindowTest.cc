#include "TestRecordings.h"

#include "gui/MainWindow.h"
#include "gui/RecentRecordings.h"
#include "gui/RecordingListDialog.h"

#include "formats/RecordingStore.h"

#include <QComboBox>
#include <QLineEdit>
#include <QSettings>
#include <QSignalSpy>
#include <QTableView>

#include <gtest/gtest.h>

#include <fstream>

namespace hermit::gui {
namespace {

constexpr int kLoadTimeoutMs = 20000;

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings().clear();
        testing::write_recording(recording_directory(), testing::four_thread_events());
    }
    std::filesystem::path recording_directory() const { return directory_.path() / "rec"; }
    QString recording_path() const { return QString::fromStdString(recording_directory().string()); }
    int selectedTableEvent() const {
        const QModelIndex current = window_.eventTable()->currentIndex();
        return current.isValid() ? window_.filteredEvents()->eventIndex(current.row()) : -1;
    }

    testing::TemporaryDirectory directory_;
    MainWindow window_{{}, QStringLiteral("/bin/true")};
};

TEST_F(MainWindowTest, OpensARecordingOffTheGuiThread) {
    QSignalSpy changed(&window_, &MainWindow::recordingChanged);
    window_.openRecording(recording_path());
    ASSERT_TRUE(changed.wait(kLoadTimeoutMs));
    ASSERT_TRUE(window_.recording());
    EXPECT_EQ(window_.recording()->events.size(), testing::four_thread_events().size());
    EXPECT_EQ(window_.timelineView()->model()->lanes().size(), 4u);
    EXPECT_EQ(window_.eventTable()->model()->rowCount(),
              static_cast<int>(testing::four_thread_events().size()));
    // All threads, then one entry per lane.
    EXPECT_EQ(window_.threadFilter()->count(), 5);
    QSettings settings;
    EXPECT_EQ(RecentRecordings(settings).list().value(0), recording_path());
}

TEST_F(MainWindowTest, ABadRecordingReportsTheFormatsError) {
    const auto broken = directory_.path() / "broken";
    std::filesystem::create_directory(broken);
    std::ofstream(broken / "meta.capnp.bin") << "not a recording";
    QSignalSpy failed(&window_, &MainWindow::loadFailed);
    window_.openRecording(QString::fromStdString(broken.string()));
    ASSERT_TRUE(failed.wait(kLoadTimeoutMs));
    const QString message = failed.at(0).at(0).toString();
    EXPECT_TRUE(message.contains(QStringLiteral("error[E03"))) << message.toStdString();
    EXPECT_FALSE(window_.recording());
}

TEST_F(MainWindowTest, SelectionSyncsTimelineTableAndDetails) {
    window_.setRecording(load_recording(recording_directory()));
    const uint64_t signal = 18;
    window_.selectEvent(signal);
    EXPECT_EQ(window_.timelineView()->selectedEvent(), signal);
    EXPECT_EQ(selectedTableEvent(), static_cast<int>(signal));
    EXPECT_TRUE(window_.detailsView()->toPlainText().contains(QStringLiteral("signal: SIGUSR1")));

    // A click in the timeline selects in the table too: tid 13's slice at 85 ns begins with event 19.
    emit window_.timelineView()->eventClicked(19);
    EXPECT_EQ(selectedTableEvent(), 19);
    EXPECT_TRUE(window_.detailsView()->toPlainText().contains(QStringLiteral("event: 19")));

    // Choosing a table row selects in the timeline.
    window_.eventTable()->selectRow(3);
    EXPECT_EQ(window_.timelineView()->selectedEvent(), 3u);
}

TEST_F(MainWindowTest, FilterControlsNarrowTheTable) {
    window_.setRecording(load_recording(recording_directory()));
    window_.threadFilter()->setCurrentIndex(window_.threadFilter()->findData(12));
    EXPECT_EQ(window_.filteredEvents()->rowCount(), 5);
    window_.kindFilter()->setCurrentText(QStringLiteral("syscall"));
    EXPECT_EQ(window_.filteredEvents()->rowCount(), 2);
    window_.threadFilter()->setCurrentIndex(0);
    window_.kindFilter()->setCurrentIndex(0);
    window_.filterEdit()->setText(QStringLiteral("exec"));
    emit window_.filterEdit()->returnPressed();
    EXPECT_EQ(window_.filteredEvents()->rowCount(), 1);
}

TEST(RecentRecordingsTest, NewestFirstWithoutDuplicatesAndBounded) {
    QSettings settings;
    RecentRecordings recent(settings);
    recent.clear();
    for (int i = 0; i < RecentRecordings::kLimit + 2; ++i) {
        recent.add(QStringLiteral("/r/%1").arg(i));
    }
    recent.add(QStringLiteral("/r/5"));
    const QStringList list = recent.list();
    EXPECT_EQ(list.size(), RecentRecordings::kLimit);
    EXPECT_EQ(list.front(), QStringLiteral("/r/5"));
    EXPECT_EQ(list.count(QStringLiteral("/r/5")), 1);
    EXPECT_FALSE(list.contains(QStringLiteral("/r/0")));
}

TEST(RecordingListDialogTest, ListsTheStoresRecordings) {
    testing::TemporaryDirectory root;
    RecordingStore store(root.path());
    std::string id;
    const auto directory = store.allocate("demo", id);
    testing::write_recording(directory, testing::four_thread_events());
    RecordingListDialog dialog(store.list());
    ASSERT_EQ(dialog.recordingCount(), 1);
    dialog.selectRow(0);
    EXPECT_EQ(std::filesystem::path(dialog.selectedDirectory().toStdString()), directory);
}

} // namespace
} // namespace hermit::gui
