#include "RecordingListDialog.h"

#include <QDateTime>
#include <QDialogButtonBox>
#include <QHeaderView>
#include <QLabel>
#include <QLocale>
#include <QTableWidget>
#include <QVBoxLayout>

namespace hermit::gui {

namespace {

QString joined(const std::vector<std::string>& words) {
    QStringList list;
    for (const std::string& word : words) {
        list << QString::fromStdString(word);
    }
    return list.join(QLatin1Char(' '));
}

} // namespace

RecordingListDialog::RecordingListDialog(std::vector<RecordingSummary> recordings, QWidget* parent)
    : QDialog(parent), recordings_(std::move(recordings)) {
    setWindowTitle(tr("Open a recording"));
    auto* layout = new QVBoxLayout(this);
    if (recordings_.empty()) {
        layout->addWidget(new QLabel(
            tr("There are no recordings yet (make one with 'hermit record start -- cmd')."), this));
    }
    const QStringList headers{tr("ID"),     tr("Command"), tr("Events"), tr("Threads"),
                              tr("Status"), tr("Started"), tr("Size")};
    table_ = new QTableWidget(static_cast<int>(recordings_.size()), static_cast<int>(headers.size()), this);
    table_->setHorizontalHeaderLabels(headers);
    table_->setSelectionBehavior(QAbstractItemView::SelectRows);
    table_->setSelectionMode(QAbstractItemView::SingleSelection);
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->verticalHeader()->hide();
    table_->horizontalHeader()->setStretchLastSection(true);
    const QLocale locale;
    for (int row = 0; row < static_cast<int>(recordings_.size()); ++row) {
        const RecordingSummary& summary = recordings_[static_cast<size_t>(row)];
        const RecordingMeta& meta = summary.meta;
        const QString status = meta.finished ? tr("exit %1").arg(meta.exit_status) : tr("unfinished");
        const QStringList cells{QString::fromStdString(meta.id),
                                joined(meta.argv),
                                QString::number(meta.event_count),
                                QString::number(meta.thread_count),
                                status,
                                QDateTime::fromMSecsSinceEpoch(meta.started_at_unix_ms).toString(Qt::ISODate),
                                locale.formattedDataSize(static_cast<qint64>(summary.size_bytes))};
        for (int column = 0; column < static_cast<int>(cells.size()); ++column) {
            table_->setItem(row, column, new QTableWidgetItem(cells[column]));
        }
    }
    table_->resizeColumnsToContents();
    layout->addWidget(table_);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Open | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(table_, &QTableWidget::cellDoubleClicked, this, &QDialog::accept);
    layout->addWidget(buttons);
    if (!recordings_.empty()) {
        selectRow(0);
    }
    resize(820, 420);
}

int RecordingListDialog::recordingCount() const {
    return static_cast<int>(recordings_.size());
}

QString RecordingListDialog::selectedDirectory() const {
    const int row = table_->currentRow();
    if (row < 0 || row >= recordingCount()) {
        return {};
    }
    return QString::fromStdString(recordings_[static_cast<size_t>(row)].directory.string());
}

void RecordingListDialog::selectRow(int row) {
    table_->selectRow(row);
}

} // namespace hermit::gui
