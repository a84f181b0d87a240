#include "MainWindow.h"

#include "RecentRecordings.h"
#include "RecordingListDialog.h"

#include "formats/Error.h"
#include "formats/RecordingStore.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QFileInfo>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTableView>
#include <QTimer>
#include <QToolBar>

#include <utility>

namespace hermit::gui {

namespace {

constexpr int kFilterDelayMs = 300; // typing pauses this long before a million rows are filtered again
constexpr int kTableRowHeight = 20;

template <size_t... I> QStringList kind_names(std::index_sequence<I...>) {
    return {QString::fromLatin1(event_kind_name(EventPayload(std::in_place_index<I>)))...};
}

QStringList all_kind_names() {
    return kind_names(std::make_index_sequence<std::variant_size_v<EventPayload>>());
}

std::optional<QString> dropped_directory(const QMimeData* mime) {
    if (!mime->hasUrls() || mime->urls().size() != 1 || !mime->urls().front().isLocalFile()) {
        return std::nullopt;
    }
    const QString path = mime->urls().front().toLocalFile();
    if (!QFileInfo(path).isDir()) {
        return std::nullopt;
    }
    return path;
}

} // namespace

MainWindow::MainWindow(SyscallNameLookup syscall_name, QString hermit_executable, QWidget* parent)
    : QMainWindow(parent), syscall_name_(std::move(syscall_name)) {
    setWindowTitle(tr("hermit"));
    setAcceptDrops(true);
    loader_ = new RecordingLoader(this);
    replay_ = new ReplayLauncher(std::move(hermit_executable),
                                 find_terminal(QProcessEnvironment::systemEnvironment()), this);
    table_model_ = new EventTableModel(syscall_name_, this);
    filter_model_ = new EventFilterProxyModel(this);
    filter_model_->setEventModel(table_model_);

    buildCentralArea();
    buildToolBar();
    buildMenus();

    progress_ = new QProgressBar(this);
    progress_->setRange(0, 100);
    progress_->setMaximumWidth(220);
    progress_->hide();
    status_ = new QLabel(tr("No recording"), this);
    statusBar()->addWidget(status_, 1);
    statusBar()->addPermanentWidget(progress_);

    replay_output_ = new QPlainTextEdit(this);
    replay_output_->setReadOnly(true);
    replay_dock_ = new QDockWidget(tr("Replay"), this);
    replay_dock_->setWidget(replay_output_);
    addDockWidget(Qt::BottomDockWidgetArea, replay_dock_);
    replay_dock_->hide();
    connect(replay_, &ReplayLauncher::output, replay_output_, [this](const QString& text) {
        replay_output_->moveCursor(QTextCursor::End);
        replay_output_->insertPlainText(text);
    });
    connect(replay_, &ReplayLauncher::gdbCommandReady, this, &MainWindow::showGdbCommand);
    connect(replay_, &ReplayLauncher::finished, this, [this](int exit_code) {
        replay_output_->appendPlainText(tr("[replay exited with %1]").arg(exit_code));
    });

    connect(loader_, &RecordingLoader::progress, progress_, &QProgressBar::setValue);
    connect(loader_, &RecordingLoader::loaded, this,
            [this](std::shared_ptr<const LoadedRecording> recording) {
                progress_->hide();
                setRecording(std::move(recording));
            });
    connect(loader_, &RecordingLoader::failed, this, [this](const QString& message) {
        progress_->hide();
        status_->setText(tr("Cannot open the recording"));
        showLoadError(message);
        emit loadFailed(message);
    });
}

void MainWindow::buildCentralArea() {
    timeline_ = new TimelineView(this);
    auto* timeline_scroll = new QScrollArea(this);
    timeline_scroll->setWidget(timeline_);
    timeline_scroll->setWidgetResizable(true);
    timeline_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    timeline_scroll->setFrameShape(QFrame::NoFrame);

    table_ = new QTableView(this);
    table_->setModel(filter_model_);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setWordWrap(false);
    table_->verticalHeader()->hide();
    // Fixed row heights keep a table of a million rows as fast as a short one.
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->verticalHeader()->setDefaultSectionSize(kTableRowHeight);
    table_->horizontalHeader()->setStretchLastSection(true);
    table_->setColumnWidth(EventTableModel::IndexColumn, 80);
    table_->setColumnWidth(EventTableModel::TimeColumn, 110);
    table_->setColumnWidth(EventTableModel::PidColumn, 60);
    table_->setColumnWidth(EventTableModel::TidColumn, 60);
    table_->setColumnWidth(EventTableModel::KindColumn, 100);

    details_ = new EventDetailsView(syscall_name_, this);

    auto* lower = new QSplitter(Qt::Horizontal, this);
    lower->addWidget(table_);
    lower->addWidget(details_);
    lower->setStretchFactor(0, 3);
    lower->setStretchFactor(1, 2);

    auto* split = new QSplitter(Qt::Vertical, this);
    split->addWidget(timeline_scroll);
    split->addWidget(lower);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 1);
    setCentralWidget(split);

    connect(timeline_, &TimelineView::eventClicked, this, [this](quint64 index) { selectEvent(index); });
    connect(table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) {
                if (!selecting_ && current.isValid()) {
                    selectEvent(static_cast<uint64_t>(filter_model_->eventIndex(current.row())));
                }
            });
}

void MainWindow::buildToolBar() {
    auto* toolbar = addToolBar(tr("Events"));
    toolbar->setMovable(false);
    filter_edit_ = new QLineEdit(this);
    filter_edit_->setPlaceholderText(tr("Filter events: text in kind or description"));
    filter_edit_->setClearButtonEnabled(true);
    filter_edit_->setMinimumWidth(280);
    thread_filter_ = new QComboBox(this);
    thread_filter_->addItem(tr("All threads"));
    kind_filter_ = new QComboBox(this);
    kind_filter_->addItem(tr("All kinds"));
    kind_filter_->addItems(all_kind_names());
    debug_button_ = new QPushButton(tr("Debug from here"), this);
    debug_button_->setToolTip(tr("Replay this recording up to the selected event and attach gdb"));
    debug_button_->setEnabled(false);

    auto* fit = toolbar->addAction(tr("Zoom to fit"));
    connect(fit, &QAction::triggered, timeline_, &TimelineView::zoomToFit);
    toolbar->addSeparator();
    toolbar->addWidget(filter_edit_);
    toolbar->addWidget(thread_filter_);
    toolbar->addWidget(kind_filter_);
    toolbar->addSeparator();
    toolbar->addWidget(debug_button_);

    filter_delay_ = new QTimer(this);
    filter_delay_->setSingleShot(true);
    filter_delay_->setInterval(kFilterDelayMs);
    connect(filter_delay_, &QTimer::timeout, this, &MainWindow::applyFilters);
    connect(filter_edit_, &QLineEdit::textChanged, filter_delay_, qOverload<>(&QTimer::start));
    connect(filter_edit_, &QLineEdit::returnPressed, this, &MainWindow::applyFilters);
    connect(thread_filter_, &QComboBox::currentIndexChanged, this, &MainWindow::applyFilters);
    connect(kind_filter_, &QComboBox::currentIndexChanged, this, &MainWindow::applyFilters);
    connect(debug_button_, &QPushButton::clicked, this, &MainWindow::debugFromHere);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->addAction(tr("&Open recording directory..."), QKeySequence::Open, this,
                    &MainWindow::chooseDirectory);
    file->addAction(tr("Open from the &recording store..."), this, &MainWindow::chooseFromStore);
    recent_menu_ = file->addMenu(tr("Recent recordings"));
    refreshRecentMenu();
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->addAction(tr("Zoom to &fit"), QKeySequence(Qt::CTRL | Qt::Key_0), timeline_,
                    &TimelineView::zoomToFit);
    view->addAction(tr("Zoom &in"), QKeySequence::ZoomIn, timeline_, &TimelineView::zoomIn);
    view->addAction(tr("Zoom &out"), QKeySequence::ZoomOut, timeline_, &TimelineView::zoomOut);
    view->addSeparator();
    event_order_action_ = view->addAction(tr("Lay out by &event order"));
    event_order_action_->setCheckable(true);
    event_order_action_->setToolTip(
        tr("One step per event instead of logical time, which stands still between "
           "scheduling events"));
    connect(event_order_action_, &QAction::toggled, this,
            [this](bool on) { setTimeAxis(on ? TimeAxis::EventOrder : TimeAxis::LogicalTime); });
}

void MainWindow::openRecording(const QString& directory) {
    status_->setText(tr("Opening %1...").arg(directory));
    progress_->setValue(0);
    progress_->show();
    loader_->load(directory.toStdString());
}

void MainWindow::setRecording(std::shared_ptr<const LoadedRecording> recording) {
    recording_ = std::move(recording);
    selected_.reset();
    table_model_->setRecording(recording_);
    setTimeAxis(axis_);
    details_->clearEvent();

    const QSignalBlocker blocker(thread_filter_);
    thread_filter_->clear();
    thread_filter_->addItem(tr("All threads"));
    for (const ThreadLane& lane : recording_->timeline.lanes()) {
        thread_filter_->addItem(QString::fromStdString(lane.name), lane.tid);
    }
    applyFilters();

    const RecordingMeta& meta = recording_->meta;
    const QString name = meta.id.empty() ? QString::fromStdString(recording_->directory.filename().string())
                                         : QString::fromStdString(meta.id);
    setWindowTitle(tr("hermit - %1").arg(name));
    const QString outcome = meta.finished ? tr("exit status %1").arg(meta.exit_status) : tr("unfinished");
    status_->setText(tr("%1: %2 events, %3 threads, %4")
                         .arg(name)
                         .arg(recording_->events.size())
                         .arg(recording_->timeline.lanes().size())
                         .arg(outcome));
    debug_button_->setEnabled(false);
    if (!recording_->directory.empty()) {
        QSettings settings;
        RecentRecordings(settings).add(QString::fromStdString(recording_->directory.string()));
        refreshRecentMenu();
    }
    emit recordingChanged();
}

void MainWindow::setTimeAxis(TimeAxis axis) {
    axis_ = axis;
    {
        const QSignalBlocker blocker(event_order_action_);
        event_order_action_->setChecked(axis == TimeAxis::EventOrder);
    }
    if (!recording_) {
        return;
    }
    if (axis == TimeAxis::LogicalTime) {
        timeline_->setModel(std::shared_ptr<const TimelineModel>(recording_, &recording_->timeline));
    } else {
        timeline_->setModel(std::make_shared<const TimelineModel>(recording_->columns, axis));
    }
    if (selected_) {
        timeline_->setSelectedEvent(selected_);
    }
}

void MainWindow::selectEvent(uint64_t event_index) {
    if (!recording_ || event_index >= recording_->events.size()) {
        return;
    }
    selected_ = event_index;
    timeline_->setSelectedEvent(event_index);
    details_->displayEvent(recording_->events, event_index);
    debug_button_->setEnabled(!recording_->directory.empty());

    // Keep the event on screen in the timeline.
    TimelineViewport* viewport = timeline_->viewport();
    const auto time = static_cast<double>(timeline_->model()->position_of(event_index).time);
    if (time < viewport->begin() || time > viewport->end()) {
        viewport->pan(time - (viewport->begin() + viewport->span() / 2));
    }

    const int row = filter_model_->proxyRow(static_cast<int>(event_index));
    if (row >= 0) {
        selecting_ = true;
        const QModelIndex index = filter_model_->index(row, 0);
        table_->selectionModel()->setCurrentIndex(index, QItemSelectionModel::ClearAndSelect |
                                                             QItemSelectionModel::Rows);
        table_->scrollTo(index);
        selecting_ = false;
    }
}

void MainWindow::applyFilters() {
    filter_delay_->stop();
    const QVariant tid = thread_filter_->currentData();
    filter_model_->setThreadFilter(tid.isValid() ? std::optional<int32_t>(tid.toInt()) : std::nullopt);
    filter_model_->setKindFilter(kind_filter_->currentIndex() > 0 ? kind_filter_->currentText() : QString());
    filter_model_->setTextFilter(filter_edit_->text().trimmed());
    if (selected_) {
        const int row = filter_model_->proxyRow(static_cast<int>(*selected_));
        if (row >= 0) {
            table_->scrollTo(filter_model_->index(row, 0));
        }
    }
}

void MainWindow::chooseDirectory() {
    const QString directory = QFileDialog::getExistingDirectory(this, tr("Open a recording directory"));
    if (!directory.isEmpty()) {
        openRecording(directory);
    }
}

void MainWindow::chooseFromStore() {
    std::vector<RecordingSummary> recordings;
    try {
        recordings = RecordingStore().list();
    } catch (const Error& error) {
        showLoadError(QString::fromStdString(error.what()));
        return;
    }
    RecordingListDialog dialog(std::move(recordings), this);
    if (dialog.exec() == QDialog::Accepted && !dialog.selectedDirectory().isEmpty()) {
        openRecording(dialog.selectedDirectory());
    }
}

void MainWindow::refreshRecentMenu() {
    recent_menu_->clear();
    QSettings settings;
    const QStringList recent = RecentRecordings(settings).list();
    for (const QString& directory : recent) {
        recent_menu_->addAction(directory, this, [this, directory] { openRecording(directory); });
    }
    recent_menu_->setEnabled(!recent.isEmpty());
}

void MainWindow::debugFromHere() {
    if (!recording_ || !selected_ || recording_->directory.empty()) {
        return;
    }
    replay_output_->clear();
    replay_dock_->show();
    replay_->start(QString::fromStdString(recording_->directory.string()), *selected_);
}

void MainWindow::showGdbCommand(const QString& command) {
    // Not modal, like the load errors: the replay keeps running and its output keeps arriving.
    auto* box =
        new QMessageBox(QMessageBox::Information, tr("Debug from here"),
                        tr("No terminal emulator is configured ($TERMINAL or x-terminal-emulator), so "
                           "hermit waits for gdb at event %1. Connect from a terminal with:\n\n%2")
                            .arg(selected_ ? QString::number(*selected_) : QString(), command),
                        QMessageBox::Ok, this);
    box->setTextInteractionFlags(Qt::TextSelectableByMouse);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showLoadError(const QString& message) {
    // Not modal: a failed load must not stop the event loop (or a test driving it).
    auto* box = new QMessageBox(QMessageBox::Critical, tr("Cannot open the recording"), message,
                                QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    if (dropped_directory(event->mimeData())) {
        event->acceptProposedAction();
    }
}

void MainWindow::dropEvent(QDropEvent* event) {
    if (auto directory = dropped_directory(event->mimeData())) {
        event->acceptProposedAction();
        openRecording(*directory);
    }
}

} // namespace hermit::gui
