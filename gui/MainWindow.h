#pragma once
// MainWindow: one recording: the timeline on top, the event table (with a filter box and thread and kind
// filters) and the details of the selected event below. A selection made in any of them shows in all.
// Recordings open from a directory chooser, the store's list, the recent list or by drag and drop, and
// load on a worker thread with a progress bar.

#include "EventDetailsView.h"
#include "EventFilterProxyModel.h"
#include "EventTableModel.h"
#include "LoadedRecording.h"
#include "RecordingLoader.h"
#include "ReplayLauncher.h"
#include "TimelineView.h"

#include <QMainWindow>

#include <memory>
#include <optional>

class QAction;
class QComboBox;
class QLabel;
class QLineEdit;
class QMenu;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QTableView;
class QTimer;
class QDockWidget;

namespace hermit::gui {

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    // `hermit_executable` runs "Debug from here".
    MainWindow(SyscallNameLookup syscall_name, QString hermit_executable, QWidget* parent = nullptr);

    // Loads on a worker thread; recordingChanged() or loadFailed() follows.
    void openRecording(const QString& directory);
    // Shows a recording that is already loaded.
    void setRecording(std::shared_ptr<const LoadedRecording> recording);
    const std::shared_ptr<const LoadedRecording>& recording() const { return recording_; }
    void selectEvent(uint64_t event_index);
    // Lays the timeline out by logical time (the default) or by event index.
    void setTimeAxis(TimeAxis axis);
    std::optional<uint64_t> selectedEvent() const { return selected_; }

    TimelineView* timelineView() const { return timeline_; }
    QTableView* eventTable() const { return table_; }
    EventFilterProxyModel* filteredEvents() const { return filter_model_; }
    EventDetailsView* detailsView() const { return details_; }
    QLineEdit* filterEdit() const { return filter_edit_; }
    QComboBox* threadFilter() const { return thread_filter_; }
    QComboBox* kindFilter() const { return kind_filter_; }

signals:
    void recordingChanged();
    void loadFailed(const QString& message);

protected:
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    void buildMenus();
    void buildToolBar();
    void buildCentralArea();
    void chooseDirectory();
    void chooseFromStore();
    void refreshRecentMenu();
    void applyFilters();
    void debugFromHere();
    void showGdbCommand(const QString& command);
    void showLoadError(const QString& message);

    SyscallNameLookup syscall_name_;
    std::shared_ptr<const LoadedRecording> recording_;
    std::optional<uint64_t> selected_;
    TimeAxis axis_ = TimeAxis::LogicalTime;
    QAction* event_order_action_ = nullptr;
    bool selecting_ = false;

    RecordingLoader* loader_ = nullptr;
    ReplayLauncher* replay_ = nullptr;
    EventTableModel* table_model_ = nullptr;
    EventFilterProxyModel* filter_model_ = nullptr;
    TimelineView* timeline_ = nullptr;
    QTableView* table_ = nullptr;
    EventDetailsView* details_ = nullptr;
    QLineEdit* filter_edit_ = nullptr;
    QComboBox* thread_filter_ = nullptr;
    QComboBox* kind_filter_ = nullptr;
    QTimer* filter_delay_ = nullptr;
    QPushButton* debug_button_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* status_ = nullptr;
    QMenu* recent_menu_ = nullptr;
    QDockWidget* replay_dock_ = nullptr;
    QPlainTextEdit* replay_output_ = nullptr;
};

} // namespace hermit::gui
