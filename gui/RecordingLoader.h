#pragma once
// RecordingLoader: reads a recording and builds its timeline on a worker thread (QtConcurrent), reporting
// progress, so the GUI stays responsive while a big recording opens. A newer load() supersedes an older
// one whose result is then dropped.

#include "LoadedRecording.h"

#include <QObject>
#include <QString>

#include <filesystem>
#include <memory>

namespace hermit::gui {

class RecordingLoader : public QObject {
    Q_OBJECT
public:
    explicit RecordingLoader(QObject* parent = nullptr);

    void load(const std::filesystem::path& directory);
    bool isLoading() const { return pending_ > 0; }

signals:
    void progress(int percent);
    void loaded(std::shared_ptr<const hermit::gui::LoadedRecording> recording);
    // The hermit::Error text (or another exception's) of a recording that cannot be read.
    void failed(const QString& message);

private:
    int generation_ = 0;
    int pending_ = 0;
};

} // namespace hermit::gui
