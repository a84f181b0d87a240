#include "TimelineView.h"

#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QWheelEvent>

#include <algorithm>
#include <array>
#include <cmath>

namespace hermit::gui {

namespace {

constexpr int kRulerTargetTickSpacing = 110; // pixels between labelled ticks
constexpr int kDragThreshold = 3;            // pixels a press may move and still be a click
constexpr int kClickTolerance = 4;           // pixels either side of the cursor a click looks at
constexpr double kZoomStep = 1.5;
constexpr double kWheelStep = 1.2; // per 15 degree notch
// A slice covering only a sliver of a column is still drawn, lighter, so short runs do not vanish.
constexpr double kMinimumBarOpacity = 0.35;

const QColor kPlotBackground(0xfa, 0xfa, 0xfa);
const QColor kAlternatePlotBackground(0xef, 0xf1, 0xf4);
const QColor kLabelBackground(0xe4, 0xe7, 0xeb);
const QColor kGridColor(0xd0, 0xd4, 0xda);
const QColor kTextColor(0x20, 0x24, 0x2a);
const QColor kSelectionColor(0x10, 0x10, 0x10);
const QColor kDivergenceColor(0xe0, 0x10, 0x10);

QColor blend(const QColor& from, const QColor& to, double amount) {
    auto mix = [amount](int a, int b) { return static_cast<int>(std::lround(a + (b - a) * amount)); };
    return QColor(mix(from.red(), to.red()), mix(from.green(), to.green()), mix(from.blue(), to.blue()));
}

// 1, 2 or 5 times a power of ten, at least `raw`.
double nice_step(double raw) {
    const double magnitude = std::pow(10.0, std::floor(std::log10(std::max(raw, 1e-9))));
    for (double multiple : {1.0, 2.0, 5.0, 10.0}) {
        if (multiple * magnitude >= raw) {
            return multiple * magnitude;
        }
    }
    return 10 * magnitude;
}

QString time_label(double ns, double step) {
    struct Unit {
        double scale;
        const char* name;
    };
    constexpr std::array units{Unit{1e9, "s"}, Unit{1e6, "ms"}, Unit{1e3, "us"}, Unit{1, "ns"}};
    for (const Unit& unit : units) {
        if (step >= unit.scale || unit.scale == 1) {
            const double value = ns / unit.scale;
            const int decimals = step / unit.scale >= 1 ? 0 : 1;
            return QStringLiteral("%1 %2").arg(value, 0, 'f', decimals).arg(QLatin1String(unit.name));
        }
    }
    return QString::number(ns);
}

} // namespace

TimelineView::TimelineView(QWidget* parent) : QWidget(parent) {
    setViewport(&own_viewport_);
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAutoFillBackground(false);
}

void TimelineView::setModel(std::shared_ptr<const TimelineModel> model) {
    model_ = std::move(model);
    selected_.reset();
    divergence_time_.reset();
    divergence_events_.clear();
    if (model_ && viewport_ == &own_viewport_) {
        own_viewport_.setFullRange(static_cast<double>(model_->begin_time()),
                                   static_cast<double>(model_->end_time()));
    }
    updateGeometry();
    update();
}

void TimelineView::setViewport(TimelineViewport* viewport) {
    if (viewport_) {
        disconnect(viewport_, nullptr, this, nullptr);
    }
    viewport_ = viewport;
    connect(viewport_, &TimelineViewport::changed, this, qOverload<>(&QWidget::update));
    update();
}

void TimelineView::setSelectedEvent(std::optional<uint64_t> event_index) {
    if (event_index && (!model_ || *event_index >= model_->event_count())) {
        event_index.reset();
    }
    selected_ = event_index;
    update();
}

void TimelineView::setDivergence(std::optional<double> time, std::vector<uint64_t> marked_events) {
    divergence_time_ = time;
    divergence_events_ = std::move(marked_events);
    update();
}

QRect TimelineView::plotRect() const {
    const int lanes = model_ ? static_cast<int>(model_->lanes().size()) : 0;
    return QRect(kLabelWidth, kRulerHeight, std::max(1, width() - kLabelWidth), lanes * kLaneHeight);
}

QRect TimelineView::laneRect(size_t lane) const {
    return QRect(0, kRulerHeight + static_cast<int>(lane) * kLaneHeight, width(), kLaneHeight);
}

double TimelineView::timeAt(double x) const {
    const QRect plot = plotRect();
    return viewport_->begin() + (x - plot.left()) * viewport_->span() / plot.width();
}

double TimelineView::xOf(double time) const {
    const QRect plot = plotRect();
    return plot.left() + (time - viewport_->begin()) * plot.width() / viewport_->span();
}

QColor TimelineView::laneColor(size_t lane) {
    static const std::array palette{QColor(0x2b, 0x6c, 0xb0), QColor(0x2f, 0x9e, 0x44),
                                    QColor(0xd9, 0x77, 0x06), QColor(0x7b, 0x3f, 0xb5),
                                    QColor(0x0f, 0x8b, 0x8d), QColor(0xb8, 0x3b, 0x5e),
                                    QColor(0x5c, 0x6b, 0x1f), QColor(0x8a, 0x55, 0x2d)};
    return palette[lane % palette.size()];
}

QColor TimelineView::markColor(MarkKind kind) {
    switch (kind) {
    case MarkKind::Syscall:
        return QColor(0x55, 0x5b, 0x66);
    case MarkKind::Exec:
        return QColor(0x00, 0x7a, 0xcc);
    case MarkKind::ThreadStart:
        return QColor(0x1a, 0xa0, 0x1a);
    case MarkKind::ThreadExit:
        return QColor(0x99, 0x33, 0x00);
    case MarkKind::Signal:
        return QColor(0xe0, 0x00, 0x80);
    }
    return kTextColor;
}

QColor TimelineView::backgroundColor(size_t lane) {
    return lane % 2 == 0 ? kPlotBackground : kAlternatePlotBackground;
}

QSize TimelineView::sizeHint() const {
    return QSize(900, minimumSizeHint().height());
}

QSize TimelineView::minimumSizeHint() const {
    const int lanes = model_ ? static_cast<int>(model_->lanes().size()) : 1;
    return QSize(kLabelWidth + 200, kRulerHeight + std::max(lanes, 1) * kLaneHeight + 1);
}

void TimelineView::zoomToFit() {
    viewport_->zoomToFit();
}

void TimelineView::zoomIn() {
    viewport_->zoom(kZoomStep, viewport_->begin() + viewport_->span() / 2);
}

void TimelineView::zoomOut() {
    viewport_->zoom(1 / kZoomStep, viewport_->begin() + viewport_->span() / 2);
}

void TimelineView::paintEvent(QPaintEvent*) {
    QPainter painter(this);
    painter.fillRect(rect(), palette().window());
    if (!model_ || model_->lanes().empty()) {
        painter.setPen(kTextColor);
        painter.drawText(rect(), Qt::AlignCenter,
                         tr("No recording: use File > Open or drop a recording here."));
        return;
    }
    paintRuler(painter);
    for (size_t lane = 0; lane < model_->lanes().size(); ++lane) {
        paintLane(painter, lane);
    }

    const QRect plot = plotRect();
    painter.setClipRect(QRect(plot.left(), 0, plot.width(), plot.bottom() + 1));
    if (divergence_time_) {
        const int x = static_cast<int>(std::floor(xOf(*divergence_time_)));
        painter.fillRect(QRect(x - 1, 0, 2, plot.bottom() + 1), kDivergenceColor);
    }
    for (uint64_t event_index : divergence_events_) {
        if (event_index < model_->event_count()) {
            paintEventMarker(painter, event_index, kDivergenceColor);
        }
    }
    if (selected_) {
        paintEventMarker(painter, *selected_, kSelectionColor);
    }
}

void TimelineView::paintRuler(QPainter& painter) const {
    const QRect plot = plotRect();
    painter.fillRect(QRect(0, 0, width(), kRulerHeight), kLabelBackground);
    painter.setPen(kTextColor);
    const bool event_order = model_->axis() == TimeAxis::EventOrder;
    painter.drawText(QRect(6, 0, kLabelWidth - 12, kRulerHeight), Qt::AlignVCenter | Qt::AlignLeft,
                     event_order ? tr("event") : tr("logical time"));
    double step = nice_step(viewport_->span() * kRulerTargetTickSpacing / plot.width());
    if (event_order) {
        step = std::max(step, 1.0);
    }
    const double first = std::ceil(viewport_->begin() / step) * step;
    for (double tick = first; tick <= viewport_->end(); tick += step) {
        const int x = static_cast<int>(std::lround(xOf(tick)));
        painter.setPen(kGridColor);
        painter.drawLine(x, kRulerHeight - 6, x, plot.bottom());
        painter.setPen(kTextColor);
        painter.drawText(QRect(x + 3, 0, kRulerTargetTickSpacing - 6, kRulerHeight - 4),
                         Qt::AlignBottom | Qt::AlignLeft,
                         event_order ? QString::number(tick, 'f', 0) : time_label(tick, step));
    }
    painter.setPen(kGridColor);
    painter.drawLine(0, kRulerHeight - 1, width(), kRulerHeight - 1);
}

void TimelineView::paintLane(QPainter& painter, size_t lane_index) const {
    const ThreadLane& lane = model_->lanes()[lane_index];
    const QRect row = laneRect(lane_index);
    const QRect plot = plotRect();
    const QColor background = backgroundColor(lane_index);
    painter.fillRect(QRect(plot.left(), row.top(), plot.width(), row.height()), background);
    painter.fillRect(QRect(0, row.top(), kLabelWidth, row.height()), kLabelBackground);
    painter.setPen(kTextColor);
    painter.drawText(QRect(6, row.top(), kLabelWidth - 12, row.height()), Qt::AlignVCenter | Qt::AlignLeft,
                     QString::fromStdString(lane.name));
    // A line above the first thread of each process.
    const bool first_of_process = lane_index == 0 || model_->lanes()[lane_index - 1].pid != lane.pid;
    painter.setPen(first_of_process ? kTextColor : kGridColor);
    painter.drawLine(0, row.top(), width(), row.top());

    const std::vector<ColumnSummary> columns = model_->summarize(
        lane_index, viewport_->begin(), viewport_->end(), static_cast<size_t>(plot.width()));
    const QColor bar = laneColor(lane_index);
    const int bar_top = row.top() + kBarTop;
    const int bar_height = kBarBottom - kBarTop;
    // Neighbouring columns of one colour become one rectangle.
    size_t run_start = 0;
    std::optional<QColor> run_color;
    auto flush = [&](size_t end) {
        if (run_color) {
            painter.fillRect(QRect(plot.left() + static_cast<int>(run_start), bar_top,
                                   static_cast<int>(end - run_start), bar_height),
                             *run_color);
        }
    };
    for (size_t column = 0; column < columns.size(); ++column) {
        const ColumnSummary& summary = columns[column];
        std::optional<QColor> color;
        if (summary.has_slice || summary.coverage > 0) {
            color = blend(background, bar, std::max<double>(summary.coverage, kMinimumBarOpacity));
        }
        if (color != run_color) {
            flush(column);
            run_start = column;
            run_color = color;
        }
        if (summary.mark_count > 0) {
            const int x = plot.left() + static_cast<int>(column);
            painter.fillRect(QRect(x, row.top() + kTickTop, 1, kTickBottom - kTickTop),
                             markColor(summary.strongest_mark));
        }
    }
    flush(columns.size());
}

void TimelineView::paintEventMarker(QPainter& painter, uint64_t event_index, const QColor& color) const {
    const EventPosition position = model_->position_of(event_index);
    const QRect row = laneRect(position.lane);
    const int x = static_cast<int>(std::floor(xOf(static_cast<double>(position.time))));
    painter.setPen(Qt::NoPen);
    painter.setBrush(color);
    const int middle = row.top() + (kBarTop + kBarBottom) / 2;
    const QPoint diamond[] = {{x, middle - 7}, {x + 5, middle}, {x, middle + 7}, {x - 5, middle}};
    painter.drawPolygon(diamond, 4);
    painter.fillRect(QRect(x, row.top(), 1, row.height()), color);
}

std::optional<size_t> TimelineView::laneAt(int y) const {
    if (!model_ || y < kRulerHeight) {
        return std::nullopt;
    }
    const auto lane = static_cast<size_t>((y - kRulerHeight) / kLaneHeight);
    if (lane >= model_->lanes().size()) {
        return std::nullopt;
    }
    return lane;
}

void TimelineView::selectAt(QPoint position) {
    const auto lane = laneAt(position.y());
    if (!lane || position.x() < kLabelWidth) {
        return;
    }
    const auto event_index = model_->event_at(*lane, timeAt(position.x() - kClickTolerance),
                                              timeAt(position.x() + kClickTolerance + 1));
    if (event_index) {
        setSelectedEvent(*event_index);
        emit eventClicked(*event_index);
    }
}

void TimelineView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) {
        return;
    }
    press_position_ = event->position().toPoint();
    press_begin_ = viewport_->begin();
    dragging_ = false;
}

void TimelineView::mouseMoveEvent(QMouseEvent* event) {
    if (!press_position_ || !(event->buttons() & Qt::LeftButton)) {
        return;
    }
    const int dx = event->position().toPoint().x() - press_position_->x();
    if (std::abs(dx) > kDragThreshold) {
        dragging_ = true;
    }
    if (dragging_) {
        const double delta = -dx * viewport_->span() / plotRect().width();
        viewport_->setVisibleRange(press_begin_ + delta, press_begin_ + delta + viewport_->span());
    }
}

void TimelineView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || !press_position_) {
        return;
    }
    if (!dragging_) {
        selectAt(*press_position_);
    }
    press_position_.reset();
    dragging_ = false;
}

void TimelineView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->position().x() < kLabelWidth) {
        zoomToFit();
    }
}

void TimelineView::wheelEvent(QWheelEvent* event) {
    const double notches = event->angleDelta().y() / 120.0;
    if (notches == 0 || !model_) {
        return;
    }
    viewport_->zoom(std::pow(kWheelStep, notches), timeAt(event->position().x()));
    event->accept();
}

void TimelineView::keyPressEvent(QKeyEvent* event) {
    switch (event->key()) {
    case Qt::Key_Plus:
    case Qt::Key_Equal:
        zoomIn();
        break;
    case Qt::Key_Minus:
        zoomOut();
        break;
    case Qt::Key_0:
        zoomToFit();
        break;
    case Qt::Key_Left:
        viewport_->pan(-viewport_->span() / 10);
        break;
    case Qt::Key_Right:
        viewport_->pan(viewport_->span() / 10);
        break;
    default:
        QWidget::keyPressEvent(event);
    }
}

} // namespace hermit::gui
