#include "RecordingLoader.h"

#include <QFutureWatcher>
#include <QPromise>
#include <QtConcurrent/QtConcurrentRun>

#include <exception>

namespace hermit::gui {

namespace {

struct LoadOutcome {
    std::shared_ptr<const LoadedRecording> recording;
    QString error;
};

void load_in_worker(QPromise<LoadOutcome>& promise, const std::filesystem::path& directory) {
    LoadOutcome outcome;
    try {
        outcome.recording = load_recording(directory);
    } catch (const std::exception& error) {
        outcome.error = QString::fromStdString(error.what());
    }
    promise.addResult(std::move(outcome));
}

} // namespace

RecordingLoader::RecordingLoader(QObject* parent) : QObject(parent) {}

void RecordingLoader::load(const std::filesystem::path& directory) {
    const int generation = ++generation_;
    ++pending_;
    auto* watcher = new QFutureWatcher<LoadOutcome>(this);
    connect(watcher, &QFutureWatcher<LoadOutcome>::progressValueChanged, this, [this, generation](int value) {
        if (generation == generation_) {
            emit progress(value);
        }
    });
    connect(watcher, &QFutureWatcher<LoadOutcome>::finished, this, [this, watcher, generation] {
        --pending_;
        watcher->deleteLater();
        if (generation != generation_) {
            return;
        }
        const LoadOutcome outcome = watcher->result();
        if (outcome.recording) {
            emit progress(100);
            emit loaded(outcome.recording);
        } else {
            emit failed(outcome.error);
        }
    });
    watcher->setFuture(QtConcurrent::run(load_in_worker, directory));
}

} // namespace hermit::gui
