#pragma once
// TimelineViewport: the visible part of a time axis. Several TimelineViews can share one, which is how the
// diff view keeps two recordings on aligned axes while zooming and panning.

#include <QObject>

namespace hermit::gui {

class TimelineViewport : public QObject {
    Q_OBJECT
public:
    explicit TimelineViewport(QObject* parent = nullptr);

    // The whole axis; shows all of it.
    void setFullRange(double begin, double end);
    double fullBegin() const { return full_begin_; }
    double fullEnd() const { return full_end_; }

    double begin() const { return begin_; }
    double end() const { return end_; }
    double span() const { return end_ - begin_; }

    // Kept inside the full range and no narrower than kMinimumSpan.
    void setVisibleRange(double begin, double end);
    // factor > 1 zooms in; the time under the anchor stays where it is.
    void zoom(double factor, double anchor);
    void pan(double delta);
    void zoomToFit();

    // Visible ranges narrower than this show no more detail: event times are whole nanoseconds.
    static constexpr double kMinimumSpan = 10;

signals:
    void changed();

private:
    double full_begin_ = 0;
    double full_end_ = 1;
    double begin_ = 0;
    double end_ = 1;
};

} // namespace hermit::gui
