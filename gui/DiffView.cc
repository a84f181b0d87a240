#include "DiffView.h"

#include "formats/ScheduleDiff.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSplitter>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <utility>

namespace hermit::gui {

namespace {

struct LoadSide {
    RecordingLoader* loader;
    std::shared_ptr<const LoadedRecording>* loaded;
    int* percent;
};

// Events shown either side of the divergence by zoomToDivergence().
constexpr uint64_t kContextEvents = 20;

QString recording_title(const QString& side, const LoadedRecording& recording) {
    const QString name = recording.meta.id.empty()
                             ? QString::fromStdString(recording.directory.filename().string())
                             : QString::fromStdString(recording.meta.id);
    return QObject::tr("%1: %2 (%3 events, %4 threads)")
        .arg(side, name)
        .arg(recording.events.size())
        .arg(recording.timeline.lanes().size());
}

QScrollArea* scrolled(QWidget* widget, QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidget(widget);
    area->setWidgetResizable(true);
    area->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

} // namespace

DiffView::DiffView(SyscallNameLookup syscall_name, QWidget* parent)
    : QWidget(parent), syscall_name_(std::move(syscall_name)) {
    viewport_ = new TimelineViewport(this);
    summary_ = new QLabel(tr("Open two recordings to compare them."), this);
    summary_->setWordWrap(true);
    summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    top_title_ = new QLabel(this);
    bottom_title_ = new QLabel(this);
    top_ = new TimelineView(this);
    bottom_ = new TimelineView(this);
    top_->setViewport(viewport_);
    bottom_->setViewport(viewport_);
    details_ = new EventDetailsView(syscall_name_, this);

    auto* fit = new QPushButton(tr("Zoom to fit"), this);
    auto* to_divergence = new QPushButton(tr("Zoom to divergence"), this);
    connect(fit, &QPushButton::clicked, this, &DiffView::zoomToFit);
    connect(to_divergence, &QPushButton::clicked, this, &DiffView::zoomToDivergence);
    auto* buttons = new QHBoxLayout;
    buttons->addWidget(fit);
    buttons->addWidget(to_divergence);
    buttons->addStretch(1);

    auto* top_box = new QWidget(this);
    auto* top_layout = new QVBoxLayout(top_box);
    top_layout->setContentsMargins(0, 0, 0, 0);
    top_layout->addWidget(top_title_);
    top_layout->addWidget(scrolled(top_, top_box), 1);
    auto* bottom_box = new QWidget(this);
    auto* bottom_layout = new QVBoxLayout(bottom_box);
    bottom_layout->setContentsMargins(0, 0, 0, 0);
    bottom_layout->addWidget(bottom_title_);
    bottom_layout->addWidget(scrolled(bottom_, bottom_box), 1);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(top_box);
    split->addWidget(bottom_box);
    split->addWidget(details_);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 3);
    split->setStretchFactor(2, 1);

    progress_ = new QProgressBar(this);
    progress_->setRange(0, 200);
    progress_->hide();

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(progress_);
    layout->addWidget(summary_);
    layout->addLayout(buttons);
    layout->addWidget(split, 1);

    loader_a_ = new RecordingLoader(this);
    loader_b_ = new RecordingLoader(this);
    const std::array sides{LoadSide{loader_a_, &loaded_a_, &percent_a_},
                           LoadSide{loader_b_, &loaded_b_, &percent_b_}};
    for (auto [loader, loaded, percent] : sides) {
        connect(loader, &RecordingLoader::progress, this, [this, percent](int value) {
            *percent = value;
            progress_->setValue(percent_a_ + percent_b_);
        });
        connect(loader, &RecordingLoader::loaded, this,
                [this, loaded](std::shared_ptr<const LoadedRecording> recording) {
                    *loaded = std::move(recording);
                    if (loaded_a_ && loaded_b_) {
                        progress_->hide();
                        setRecordings(std::exchange(loaded_a_, nullptr), std::exchange(loaded_b_, nullptr));
                    }
                });
        connect(loader, &RecordingLoader::failed, this, [this](const QString& message) {
            progress_->hide();
            summary_->setStyleSheet(QStringLiteral("color: #b00000;"));
            summary_->setText(message);
            emit loadFailed(message);
        });
    }

    connect(top_, &TimelineView::eventClicked, this, [this](quint64 index) {
        bottom_->setSelectedEvent(std::nullopt);
        showEventOf(*a_, tr("A"), index);
    });
    connect(bottom_, &TimelineView::eventClicked, this, [this](quint64 index) {
        top_->setSelectedEvent(std::nullopt);
        showEventOf(*b_, tr("B"), index);
    });
}

void DiffView::setRecordings(std::shared_ptr<const LoadedRecording> a,
                             std::shared_ptr<const LoadedRecording> b) {
    a_ = std::move(a);
    b_ = std::move(b);
    top_title_->setText(recording_title(tr("A"), *a_));
    bottom_title_->setText(recording_title(tr("B"), *b_));
    details_->clearEvent();

    const ScheduleDiffResult result = diff_events(a_->events.all(), b_->events.all());
    divergence_.reset();
    if (result.identical()) {
        summary_->setStyleSheet(QStringLiteral("color: #1a7f37;"));
        summary_->setText(tr("The recordings are equivalent: %1 events, no scheduling decision differs.")
                              .arg(result.events_a));
        showTimelines();
        emit recordingsChanged();
        return;
    }
    const EventDivergence& divergence = *result.divergence;
    divergence_ = divergence.index;
    const hermit::SyscallNameLookup names = [this](int number) {
        return syscall_name_ ? syscall_name_(number).toStdString() : std::string();
    };
    summary_->setStyleSheet(QStringLiteral("color: #b00000;"));
    summary_->setText(tr("First divergence at event %1: %2")
                          .arg(divergence.index)
                          .arg(QString::fromStdString(describe_divergence(divergence, names))));
    showTimelines();
    emit recordingsChanged();
}

void DiffView::openRecordings(const QString& directory_a, const QString& directory_b) {
    percent_a_ = 0;
    percent_b_ = 0;
    loaded_a_.reset();
    loaded_b_.reset();
    progress_->setValue(0);
    progress_->show();
    summary_->setStyleSheet(QString());
    summary_->setText(tr("Loading %1 and %2...").arg(directory_a, directory_b));
    loader_a_->load(directory_a.toStdString());
    loader_b_->load(directory_b.toStdString());
}

void DiffView::setTimeAxis(TimeAxis axis) {
    axis_ = axis;
    if (a_ && b_) {
        showTimelines();
    }
}

void DiffView::showTimelines() {
    auto model_of = [this](const std::shared_ptr<const LoadedRecording>& recording) {
        return axis_ == TimeAxis::LogicalTime
                   ? std::shared_ptr<const TimelineModel>(recording, &recording->timeline)
                   : std::make_shared<const TimelineModel>(recording->columns, axis_);
    };
    top_->setModel(model_of(a_));
    bottom_->setModel(model_of(b_));
    viewport_->setFullRange(
        static_cast<double>(std::min(top_->model()->begin_time(), bottom_->model()->begin_time())),
        static_cast<double>(std::max(top_->model()->end_time(), bottom_->model()->end_time())));
    for (TimelineView* view : {top_, bottom_}) {
        if (divergence_ && *divergence_ < view->model()->event_count()) {
            const auto time = static_cast<double>(view->model()->position_of(*divergence_).time);
            view->setDivergence(time, {*divergence_});
        } else {
            view->setDivergence(std::nullopt, {});
        }
    }
}

QString DiffView::summaryText() const {
    return summary_->text();
}

void DiffView::zoomToFit() {
    viewport_->zoomToFit();
}

void DiffView::zoomToDivergence() {
    if (!divergence_) {
        return;
    }
    double begin = viewport_->fullEnd();
    double end = viewport_->fullBegin();
    for (const TimelineView* view : {top_, bottom_}) {
        const TimelineModel& model = *view->model();
        const uint64_t count = model.event_count();
        if (count == 0) {
            continue;
        }
        const uint64_t first = *divergence_ > kContextEvents ? *divergence_ - kContextEvents : 0;
        const uint64_t last = std::min(count - 1, *divergence_ + kContextEvents);
        begin = std::min(begin, static_cast<double>(model.position_of(std::min(first, count - 1)).time));
        end = std::max(end, static_cast<double>(model.position_of(last).time));
    }
    if (end > begin) {
        const double margin = (end - begin) / 10;
        viewport_->setVisibleRange(begin - margin, end + margin);
    }
}

void DiffView::showEventOf(const LoadedRecording& recording, const QString& side, quint64 event_index) {
    details_->displayEvent(recording.events, event_index);
    details_->setPlainText(tr("recording %1\n").arg(side) + details_->toPlainText());
}

} // namespace hermit::gui
