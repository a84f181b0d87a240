#pragma once
// EventSink: receives every event of a run, in order (recorder, --verify, chaos analysis).

#include "formats/Event.h"

namespace hermit::tracer {

class EventSink {
public:
    virtual ~EventSink() = default;
    virtual void on_event(const Event& event) = 0;
    // Every guest thread now waits for the outside world (input, a peer, a signal, or a deadlock): the
    // events so far may be all there is for a long time, or ever (the user kills hermit).
    virtual void on_guest_waits() {}
};

} // namespace hermit::tracer
