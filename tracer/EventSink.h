#pragma once
// EventSink: receives every event of a run, in order (recorder, --verify, chaos analysis).

#include "formats/Event.h"

namespace hermit::tracer {

class EventSink {
public:
    virtual ~EventSink() = default;
    virtual void on_event(const Event& event) = 0;
};

} // namespace hermit::tracer
