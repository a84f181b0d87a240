#pragma once
// TimelineModel: what a recording looks like on a time axis. One lane per guest thread, ordered by process
// then tid; each lane holds the slices during which the thread had the run token (from the Schedule event
// that gave it the token to the next Schedule event) and marks for its syscalls, signals, thread start and
// exit and execs. The time axis is Event::time (logical ns).
//
// Views ask for one ColumnSummary per pixel column (summarize), which costs O(width * log n) per lane: the
// slices are sorted with prefix sums of their durations and the marks are kept sorted per kind, so painting
// a recording of a million events does not touch a million events.
//
// Threads are keyed by tid: the kernel does not reuse a tid while the process lives, and a reused tid after
// the thread exited continues the same lane (the recording does not say otherwise).

#include "formats/EventColumns.h"

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace hermit::gui {

// Ordered by how much a mark matters when several share one pixel column (the largest wins).
enum class MarkKind : uint8_t { Syscall, Exec, ThreadStart, ThreadExit, Signal };
inline constexpr size_t kMarkKindCount = 5;

const char* mark_kind_name(MarkKind kind);

// [begin, end) in logical ns; event_index is the Schedule event that gave the thread the token.
struct TimeSlice {
    uint64_t begin = 0;
    uint64_t end = 0;
    uint64_t event_index = 0;
};

struct TimelineMark {
    uint64_t time = 0;
    uint64_t event_index = 0;
};

struct ThreadLane {
    int32_t pid = 0;
    int32_t tid = 0;
    std::string name; // "pid 1 / tid 2"
    std::vector<TimeSlice> slices;
    // covered_before[i] = total duration of slices[0..i); one more entry than slices.
    std::vector<uint64_t> covered_before;
    std::array<std::vector<TimelineMark>, kMarkKindCount> marks; // per kind, sorted by time

    const std::vector<TimelineMark>& marks_of(MarkKind kind) const {
        return marks[static_cast<size_t>(kind)];
    }
    size_t mark_count() const;
};

struct ProcessGroup {
    int32_t pid = 0;
    std::vector<size_t> lanes; // indices into TimelineModel::lanes(), by tid
};

// What one pixel column of one lane shows.
struct ColumnSummary {
    float coverage = 0;      // fraction of the column's time the thread held the token
    bool has_slice = false;  // some slice touches the column, even one too short to cover a visible part
    uint32_t mark_count = 0; // marks of all kinds in the column
    MarkKind strongest_mark = MarkKind::Syscall; // meaningful when mark_count > 0
};

enum class TimeAxis { LogicalTime, EventOrder };

struct EventPosition {
    size_t lane = 0;
    uint64_t time = 0;
};

class TimelineModel {
public:
    TimelineModel() = default;
    // Built from the columns alone, so no event needs decoding.
    explicit TimelineModel(const EventColumns& columns, TimeAxis axis = TimeAxis::LogicalTime);

    TimeAxis axis() const { return axis_; }
    const std::vector<ThreadLane>& lanes() const { return lanes_; }
    const std::vector<ProcessGroup>& processes() const { return processes_; }
    std::optional<size_t> lane_of_tid(int32_t tid) const;
    // The lane and time of any event of the recording.
    EventPosition position_of(uint64_t event_index) const;
    uint64_t event_count() const { return event_lane_.size(); }

    // Range covered by the recording: first event to last event (at least 1 wide). Times below are on the
    // model's axis: logical ns, or event indices for TimeAxis::EventOrder.
    uint64_t begin_time() const { return begin_time_; }
    uint64_t end_time() const { return end_time_; }

    // One summary per column; column c covers [begin + c*w, begin + (c+1)*w) with w = (end - begin)/width.
    std::vector<ColumnSummary> summarize(size_t lane, double begin, double end, size_t width) const;
    // Total time in [begin, end) during which the lane's thread held the token.
    double covered_time(size_t lane, double begin, double end) const;
    // The event a click in [begin, end) of a lane means: the mark nearest to the middle, else the slice
    // under the middle (its Schedule event).
    std::optional<uint64_t> event_at(size_t lane, double begin, double end) const;

private:
    size_t lane_for(int32_t tid);
    double covered_until(const ThreadLane& lane, double time) const;

    TimeAxis axis_ = TimeAxis::LogicalTime;
    std::vector<ThreadLane> lanes_;
    std::vector<ProcessGroup> processes_;
    std::unordered_map<int32_t, size_t> lane_by_tid_;
    std::vector<uint32_t> event_lane_;
    std::vector<uint64_t> event_time_;
    uint64_t begin_time_ = 0;
    uint64_t end_time_ = 1;
};

} // namespace hermit::gui
