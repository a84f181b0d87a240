#include "TimelineModel.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace hermit::gui {

const char* mark_kind_name(MarkKind kind) {
    switch (kind) {
    case MarkKind::Syscall:
        return "syscall";
    case MarkKind::Exec:
        return "exec";
    case MarkKind::ThreadStart:
        return "thread start";
    case MarkKind::ThreadExit:
        return "thread exit";
    case MarkKind::Signal:
        return "signal";
    }
    return "?";
}

size_t ThreadLane::mark_count() const {
    size_t count = 0;
    for (const auto& kind_marks : marks) {
        count += kind_marks.size();
    }
    return count;
}

namespace {

std::optional<MarkKind> mark_kind_of(uint8_t kind) {
    switch (kind) {
    case payload_index<SyscallEvent>():
        return MarkKind::Syscall;
    case payload_index<SignalEvent>():
        return MarkKind::Signal;
    case payload_index<ThreadStartEvent>():
        return MarkKind::ThreadStart;
    case payload_index<ThreadExitEvent>():
        return MarkKind::ThreadExit;
    case payload_index<ExecEvent>():
        return MarkKind::Exec;
    default:
        return std::nullopt;
    }
}

// Index of the first mark at or after `time`.
size_t first_mark_at_or_after(const std::vector<TimelineMark>& marks, double time) {
    auto it = std::lower_bound(marks.begin(), marks.end(), time, [](const TimelineMark& mark, double t) {
        return static_cast<double>(mark.time) < t;
    });
    return static_cast<size_t>(it - marks.begin());
}

size_t first_mark_after(const std::vector<TimelineMark>& marks, double time) {
    auto it = std::upper_bound(marks.begin(), marks.end(), time, [](double t, const TimelineMark& mark) {
        return t < static_cast<double>(mark.time);
    });
    return static_cast<size_t>(it - marks.begin());
}

} // namespace

TimelineModel::TimelineModel(const EventColumns& columns, TimeAxis axis) : axis_(axis) {
    const uint64_t count = columns.event_count();
    event_lane_.reserve(count);
    event_time_.reserve(count);
    auto time_of = [&columns, axis](uint64_t index) {
        return axis == TimeAxis::EventOrder ? index : columns.times[index];
    };
    for (const ColumnThread& thread : columns.threads) {
        ThreadLane lane;
        lane.pid = thread.pid;
        lane.tid = thread.tid;
        lane.name = fmt::format("pid {} / tid {}", thread.pid, thread.tid);
        lane_by_tid_.emplace(thread.tid, lanes_.size());
        lanes_.push_back(std::move(lane));
    }
    if (count > 0) {
        begin_time_ = time_of(0);
        end_time_ = time_of(0);
    }
    for (uint64_t index = 0; index < count; ++index) {
        begin_time_ = std::min(begin_time_, time_of(index));
        end_time_ = std::max(end_time_, time_of(index));
    }
    if (end_time_ <= begin_time_) {
        end_time_ = begin_time_ + 1;
    }

    // Before the first Schedule event the thread of the first event holds the token, so a recording
    // without scheduling decisions still shows when its only thread ran.
    std::optional<size_t> holder;
    size_t lane_index = 0;
    for (uint64_t index = 0; index < count; ++index) {
        const uint64_t time = time_of(index);
        if (index == 0 || columns.tids[index] != columns.tids[index - 1]) {
            lane_index = lane_for(columns.tids[index]);
        }
        event_lane_.push_back(static_cast<uint32_t>(lane_index));
        event_time_.push_back(time);
        const bool schedule = columns.kinds[index] == payload_index<ScheduleEvent>();
        if (schedule || !holder) {
            if (holder) {
                TimeSlice& open = lanes_[*holder].slices.back();
                open.end = std::max(open.begin, time);
            }
            lanes_[lane_index].slices.push_back(TimeSlice{time, time, index});
            holder = lane_index;
        }
        if (auto kind = mark_kind_of(columns.kinds[index])) {
            lanes_[lane_index].marks[static_cast<size_t>(*kind)].push_back(TimelineMark{time, index});
        }
    }
    if (holder) {
        TimeSlice& open = lanes_[*holder].slices.back();
        open.end = std::max(open.begin, end_time_);
    }

    for (ThreadLane& lane : lanes_) {
        lane.covered_before.reserve(lane.slices.size() + 1);
        lane.covered_before.push_back(0);
        for (const TimeSlice& slice : lane.slices) {
            lane.covered_before.push_back(lane.covered_before.back() + (slice.end - slice.begin));
        }
        for (auto& kind_marks : lane.marks) {
            const auto by_time = [](const TimelineMark& a, const TimelineMark& b) { return a.time < b.time; };
            if (std::is_sorted(kind_marks.begin(), kind_marks.end(), by_time)) {
                continue; // logical time never runs backwards in a recording, so this is the usual case
            }
            std::stable_sort(kind_marks.begin(), kind_marks.end(),
                             [](const TimelineMark& a, const TimelineMark& b) { return a.time < b.time; });
        }
    }

    // Lanes were numbered in order of appearance; present them by process, then tid.
    std::vector<size_t> order(lanes_.size());
    for (size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::sort(order.begin(), order.end(), [this](size_t a, size_t b) {
        return std::pair(lanes_[a].pid, lanes_[a].tid) < std::pair(lanes_[b].pid, lanes_[b].tid);
    });
    std::vector<uint32_t> new_index(lanes_.size());
    std::vector<ThreadLane> sorted;
    sorted.reserve(lanes_.size());
    for (size_t position = 0; position < order.size(); ++position) {
        new_index[order[position]] = static_cast<uint32_t>(position);
        sorted.push_back(std::move(lanes_[order[position]]));
    }
    lanes_ = std::move(sorted);
    for (uint32_t& lane : event_lane_) {
        lane = new_index[lane];
    }
    for (auto& [tid, lane] : lane_by_tid_) {
        lane = new_index[lane];
    }
    for (size_t i = 0; i < lanes_.size(); ++i) {
        if (processes_.empty() || processes_.back().pid != lanes_[i].pid) {
            processes_.push_back(ProcessGroup{lanes_[i].pid, {}});
        }
        processes_.back().lanes.push_back(i);
    }
}

size_t TimelineModel::lane_for(int32_t tid) {
    auto it = lane_by_tid_.find(tid);
    if (it == lane_by_tid_.end()) {
        throw std::invalid_argument(
            fmt::format("event of thread {}, which the recording does not list", tid));
    }
    return it->second;
}

std::optional<size_t> TimelineModel::lane_of_tid(int32_t tid) const {
    auto it = lane_by_tid_.find(tid);
    if (it == lane_by_tid_.end()) {
        return std::nullopt;
    }
    return it->second;
}

EventPosition TimelineModel::position_of(uint64_t event_index) const {
    return EventPosition{event_lane_.at(event_index), event_time_.at(event_index)};
}

double TimelineModel::covered_until(const ThreadLane& lane, double time) const {
    auto it =
        std::upper_bound(lane.slices.begin(), lane.slices.end(), time, [](double t, const TimeSlice& slice) {
            return t < static_cast<double>(slice.begin);
        });
    if (it == lane.slices.begin()) {
        return 0;
    }
    const size_t i = static_cast<size_t>(it - lane.slices.begin()) - 1;
    const TimeSlice& slice = lane.slices[i];
    const double inside = std::min(time, static_cast<double>(slice.end)) - static_cast<double>(slice.begin);
    return static_cast<double>(lane.covered_before[i]) + inside;
}

double TimelineModel::covered_time(size_t lane, double begin, double end) const {
    const ThreadLane& thread = lanes_.at(lane);
    return std::max(0.0, covered_until(thread, end) - covered_until(thread, begin));
}

std::vector<ColumnSummary> TimelineModel::summarize(size_t lane, double begin, double end,
                                                    size_t width) const {
    std::vector<ColumnSummary> columns(width);
    if (width == 0 || end <= begin) {
        return columns;
    }
    const ThreadLane& thread = lanes_.at(lane);
    const double column_span = (end - begin) / static_cast<double>(width);
    auto column_begin = [&](size_t column) { return begin + column_span * static_cast<double>(column); };

    double covered_at_left = covered_until(thread, begin);
    for (size_t column = 0; column < width; ++column) {
        const double left = column_begin(column);
        const double right = column_begin(column + 1);
        const double covered_at_right = covered_until(thread, right);
        columns[column].coverage =
            static_cast<float>(std::clamp((covered_at_right - covered_at_left) / column_span, 0.0, 1.0));
        covered_at_left = covered_at_right;

        // Slices do not overlap, so their ends are sorted too: the first slice ending after `left`.
        auto touching = std::lower_bound(
            thread.slices.begin(), thread.slices.end(), left, [](const TimeSlice& slice, double t) {
                return static_cast<double>(slice.end) < t ||
                       (static_cast<double>(slice.end) == t && slice.end > slice.begin);
            });
        columns[column].has_slice =
            touching != thread.slices.end() && static_cast<double>(touching->begin) < right;
    }

    for (size_t kind = 0; kind < kMarkKindCount; ++kind) {
        const auto& marks = thread.marks[kind];
        if (marks.empty()) {
            continue;
        }
        size_t left_position = first_mark_at_or_after(marks, begin);
        for (size_t column = 0; column < width; ++column) {
            // The last column includes its right edge so a mark at the very end of the range is drawn.
            const double right = column_begin(column + 1);
            const size_t right_position =
                column + 1 == width ? first_mark_after(marks, end) : first_mark_at_or_after(marks, right);
            const auto count = static_cast<uint32_t>(right_position - left_position);
            if (count > 0) {
                columns[column].mark_count += count;
                columns[column].strongest_mark = static_cast<MarkKind>(kind);
            }
            left_position = right_position;
        }
    }
    return columns;
}

std::optional<uint64_t> TimelineModel::event_at(size_t lane, double begin, double end) const {
    const ThreadLane& thread = lanes_.at(lane);
    const double middle = (begin + end) / 2;
    std::optional<uint64_t> nearest;
    double nearest_distance = 0;
    for (size_t kind = kMarkKindCount; kind-- > 0;) {
        const auto& marks = thread.marks[kind];
        const size_t after = first_mark_at_or_after(marks, middle);
        for (size_t candidate : {after, after - 1}) {
            if (candidate >= marks.size()) {
                continue;
            }
            const double time = static_cast<double>(marks[candidate].time);
            const double distance = std::abs(time - middle);
            if (time >= begin && time <= end && (!nearest || distance < nearest_distance)) {
                nearest = marks[candidate].event_index;
                nearest_distance = distance;
            }
        }
    }
    if (nearest) {
        return nearest;
    }
    auto it = std::upper_bound(thread.slices.begin(), thread.slices.end(), middle,
                               [](double t, const TimeSlice& s) { return t < static_cast<double>(s.begin); });
    if (it == thread.slices.begin()) {
        return std::nullopt;
    }
    const TimeSlice& slice = *(it - 1);
    if (middle <= static_cast<double>(slice.end)) {
        return slice.event_index;
    }
    return std::nullopt;
}

} // namespace hermit::gui
