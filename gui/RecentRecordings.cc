#include "RecentRecordings.h"

namespace hermit::gui {

namespace {
const QString kKey = QStringLiteral("recentRecordings");
}

QStringList RecentRecordings::list() const {
    return settings_.value(kKey).toStringList();
}

void RecentRecordings::add(const QString& directory) {
    QStringList recent = list();
    recent.removeAll(directory);
    recent.prepend(directory);
    while (recent.size() > kLimit) {
        recent.removeLast();
    }
    settings_.setValue(kKey, recent);
}

void RecentRecordings::clear() {
    settings_.remove(kKey);
}

} // namespace hermit::gui
