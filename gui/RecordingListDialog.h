#pragma once
// RecordingListDialog: the recordings of a RecordingStore, like `hermit record list`; the user picks one.

#include "formats/RecordingStore.h"

#include <QDialog>

#include <vector>

class QTableWidget;

namespace hermit::gui {

class RecordingListDialog : public QDialog {
    Q_OBJECT
public:
    explicit RecordingListDialog(std::vector<RecordingSummary> recordings, QWidget* parent = nullptr);

    int recordingCount() const;
    // Directory of the selected recording; empty when nothing is selected.
    QString selectedDirectory() const;
    void selectRow(int row);

private:
    std::vector<RecordingSummary> recordings_;
    QTableWidget* table_ = nullptr;
};

} // namespace hermit::gui
