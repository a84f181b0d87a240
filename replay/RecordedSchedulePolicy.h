#pragma once
// RecordedSchedulePolicy: the replay's scheduler. At each scheduling point it gives the run token to the
// thread the recording says got it next: the tid of the next recorded ScheduleEvent, or the current
// thread when the next recorded event is not a schedule (the recorded run kept going on it). A recorded
// thread that is not runnable now is a divergence (hermit::Error ReplayDesync).

#include "ReplayLog.h"
#include "tracer/SchedulePolicy.h"

namespace hermit::replay {

class RecordedSchedulePolicy : public tracer::SchedulePolicy {
public:
    // `log` must outlive the policy.
    explicit RecordedSchedulePolicy(const ReplayLog& log) : log_(log) {}

    int32_t choose(const tracer::SchedulingPoint& point, const std::vector<int32_t>& runnable) override;
    bool follows_recording() const override { return true; }

private:
    const ReplayLog& log_;
};

} // namespace hermit::replay
