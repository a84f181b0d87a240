#pragma once
// RecentRecordings: the recording directories opened lately, newest first, kept in QSettings.

#include <QSettings>
#include <QStringList>

namespace hermit::gui {

class RecentRecordings {
public:
    static constexpr int kLimit = 8;

    explicit RecentRecordings(QSettings& settings) : settings_(settings) {}

    QStringList list() const;
    // Moves the directory to the front, dropping the oldest beyond kLimit.
    void add(const QString& directory);
    void clear();

private:
    QSettings& settings_;
};

} // namespace hermit::gui
