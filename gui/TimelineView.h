#pragma once
// TimelineView: paints a TimelineModel: a time ruler on top, then one lane per thread with its name in a
// label column, bars where the thread held the run token and ticks for its marks. Wheel zooms around the
// cursor, dragging pans, a click selects the event under the cursor. All data and aggregation come from
// the model (one ColumnSummary per pixel column); the view keeps only what is on screen.

#include "TimelineModel.h"
#include "TimelineViewport.h"

#include <QColor>
#include <QPointer>
#include <QWidget>

#include <memory>
#include <optional>
#include <vector>

namespace hermit::gui {

class TimelineView : public QWidget {
    Q_OBJECT
public:
    static constexpr int kLabelWidth = 170;
    static constexpr int kRulerHeight = 28;
    static constexpr int kLaneHeight = 24;
    // Inside a lane: mark ticks above the bar.
    static constexpr int kTickTop = 2;
    static constexpr int kTickBottom = 7;
    static constexpr int kBarTop = 9;
    static constexpr int kBarBottom = 21;

    explicit TimelineView(QWidget* parent = nullptr);

    void setModel(std::shared_ptr<const TimelineModel> model);
    const TimelineModel* model() const { return model_.get(); }
    // Shares the time axis with other views; the view does not own it.
    void setViewport(TimelineViewport* viewport);
    TimelineViewport* viewport() const { return viewport_; }

    void setSelectedEvent(std::optional<uint64_t> event_index);
    std::optional<uint64_t> selectedEvent() const { return selected_; }
    // A red line across all lanes at this time and a red marker on each of these events (the diff view).
    void setDivergence(std::optional<double> time, std::vector<uint64_t> marked_events);
    std::optional<double> divergenceTime() const { return divergence_time_; }
    const std::vector<uint64_t>& divergenceEvents() const { return divergence_events_; }

    QRect plotRect() const;
    QRect laneRect(size_t lane) const;
    double timeAt(double x) const;
    double xOf(double time) const;

    static QColor laneColor(size_t lane);
    static QColor markColor(MarkKind kind);
    static QColor backgroundColor(size_t lane);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void zoomToFit();
    void zoomIn();
    void zoomOut();

signals:
    void eventClicked(quint64 event_index);

protected:
    void paintEvent(QPaintEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    void paintRuler(QPainter& painter) const;
    void paintLane(QPainter& painter, size_t lane) const;
    void paintEventMarker(QPainter& painter, uint64_t event_index, const QColor& color) const;
    std::optional<size_t> laneAt(int y) const;
    void selectAt(QPoint position);

    std::shared_ptr<const TimelineModel> model_;
    TimelineViewport own_viewport_;
    QPointer<TimelineViewport> viewport_;
    std::optional<uint64_t> selected_;
    std::optional<double> divergence_time_;
    std::vector<uint64_t> divergence_events_;
    std::optional<QPoint> press_position_;
    double press_begin_ = 0;
    bool dragging_ = false;
};

} // namespace hermit::gui
