#include "TimelineViewport.h"

#include <algorithm>

namespace hermit::gui {

TimelineViewport::TimelineViewport(QObject* parent) : QObject(parent) {}

void TimelineViewport::setFullRange(double begin, double end) {
    full_begin_ = begin;
    full_end_ = std::max(end, begin + 1);
    zoomToFit();
}

void TimelineViewport::setVisibleRange(double begin, double end) {
    const double full_span = full_end_ - full_begin_;
    double span = std::clamp(end - begin, std::min(kMinimumSpan, full_span), full_span);
    double new_begin = std::clamp(begin, full_begin_, full_end_ - span);
    if (new_begin == begin_ && new_begin + span == end_) {
        return;
    }
    begin_ = new_begin;
    end_ = new_begin + span;
    emit changed();
}

void TimelineViewport::zoom(double factor, double anchor) {
    if (factor <= 0) {
        return;
    }
    const double fraction = span() > 0 ? (anchor - begin_) / span() : 0.5;
    const double new_span = span() / factor;
    const double new_begin = anchor - fraction * new_span;
    setVisibleRange(new_begin, new_begin + new_span);
}

void TimelineViewport::pan(double delta) {
    setVisibleRange(begin_ + delta, end_ + delta);
}

void TimelineViewport::zoomToFit() {
    begin_ = full_begin_;
    end_ = full_end_;
    emit changed();
}

} // namespace hermit::gui
