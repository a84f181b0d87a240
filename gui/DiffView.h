#pragma once
// DiffView: two recordings one above the other on one time axis (two TimelineViews sharing a viewport, so
// zoom and pan move both), with the first divergent scheduling decision marked in both (a red line and red
// markers on the events) and the summary of the difference above them.

#include "EventDetailsView.h"
#include "LoadedRecording.h"
#include "RecordingLoader.h"
#include "TimelineView.h"
#include "TimelineViewport.h"

#include <QWidget>

#include <memory>
#include <optional>

class QLabel;
class QProgressBar;

namespace hermit::gui {

class DiffView : public QWidget {
    Q_OBJECT
public:
    explicit DiffView(SyscallNameLookup syscall_name = {}, QWidget* parent = nullptr);

    void setRecordings(std::shared_ptr<const LoadedRecording> a, std::shared_ptr<const LoadedRecording> b);
    // Loads both on worker threads with a progress bar, then shows them; loadFailed() on an error.
    void openRecordings(const QString& directory_a, const QString& directory_b);
    // Lays both timelines out by logical time (the default) or by event index.
    void setTimeAxis(TimeAxis axis);
    // Index of the first event where the two differ; empty when they are identical.
    std::optional<uint64_t> divergenceIndex() const { return divergence_; }
    QString summaryText() const;

    TimelineView* topView() const { return top_; }
    TimelineView* bottomView() const { return bottom_; }
    TimelineViewport* viewport() const { return viewport_; }

signals:
    void recordingsChanged();
    void loadFailed(const QString& message);

public slots:
    void zoomToFit();
    // Shows a few events either side of the divergence.
    void zoomToDivergence();

private:
    void showTimelines();
    void showEventOf(const LoadedRecording& recording, const QString& side, quint64 event_index);

    SyscallNameLookup syscall_name_;
    std::shared_ptr<const LoadedRecording> a_;
    std::shared_ptr<const LoadedRecording> b_;
    std::optional<uint64_t> divergence_;
    TimeAxis axis_ = TimeAxis::LogicalTime;
    TimelineViewport* viewport_ = nullptr;
    RecordingLoader* loader_a_ = nullptr;
    RecordingLoader* loader_b_ = nullptr;
    std::shared_ptr<const LoadedRecording> loaded_a_;
    std::shared_ptr<const LoadedRecording> loaded_b_;
    int percent_a_ = 0;
    int percent_b_ = 0;
    QProgressBar* progress_ = nullptr;
    QLabel* summary_ = nullptr;
    QLabel* top_title_ = nullptr;
    QLabel* bottom_title_ = nullptr;
    TimelineView* top_ = nullptr;
    TimelineView* bottom_ = nullptr;
    EventDetailsView* details_ = nullptr;
};

} // namespace hermit::gui
