#pragma once
// GuestRun: the one recipe that turns a RunConfig into a Session with the Virtualizer and the schedule
// policy, shared by `hermit run`, record, replay and verify so that all of them execute the guest the
// same way. Callers may put their own interceptors in front of the Virtualizer (the recorder and the
// replayer must see every syscall first) and add event sinks; the Virtualizer's rdtsc/cpuid events
// reach the same sinks.

#include "EventSink.h"
#include "Session.h"
#include "Virtualizer.h"
#include "formats/Recording.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace hermit::tracer {

struct GuestRunSpec {
    std::vector<std::string> argv;
    std::vector<std::string> env; // the guest's whole environment
    std::string cwd;              // empty: hermit's cwd
    RunConfig config;
    // Replay: the recorded inherited descriptors, recreated as stand-ins (SessionOptions::stand_ins).
    std::optional<std::vector<InheritedDescriptor>> stand_ins = std::nullopt;
    // Replay: an open file with the recorded copy of a regular-file stdin and where the guest started
    // reading it (SessionOptions::stdin_file); -1: hermit's stdin.
    int stdin_file = -1;
    uint64_t stdin_offset = 0;
    // Replay: the guest's stdout/stderr among these go to /dev/null (SessionOptions::null_outputs).
    std::vector<int> null_outputs = {};
    // Replay: the inputs are the recording's (SessionOptions::interactive is false).
    bool replaying = false;
    // Mounted over the guest's paths, after the Virtualizer's (SessionOptions::overlays).
    std::vector<FileOverlay> overlays = {};
    std::vector<std::string> own_mounts = {};         // SessionOptions::own_mounts
    std::string throwaway_directory = {};             // SessionOptions::throwaway_directory
    std::function<void(pid_t)> before_exec = nullptr; // SessionOptions::before_exec
    // --verify's second run: the first run's start (Virtualizer::changes_since_ns), so that what the first
    // run changed is the run's own in both.
    std::optional<int64_t> changes_since_ns = std::nullopt;
};

class GuestRun : private EventSink {
public:
    explicit GuestRun(GuestRunSpec spec);
    GuestRun(const GuestRun&) = delete;
    GuestRun& operator=(const GuestRun&) = delete;

    // Both before run(); neither is owned. Interceptors added here come before the Virtualizer.
    void add_interceptor(SyscallInterceptor* interceptor);
    void add_event_sink(EventSink* sink);
    // Replaces the policy the RunConfig selects (the replayer follows a recorded schedule).
    void set_schedule_policy(std::unique_ptr<SchedulePolicy> policy);

    Session& session() { return session_; }
    Virtualizer& virtualizer() { return virtualizer_; }

    // Runs the guest to completion; returns its shell-style exit status.
    int run();

private:
    void on_event(const Event& event) override; // the Virtualizer's own events, fanned out to the sinks

    std::vector<EventSink*> sinks_;
    Virtualizer virtualizer_;
    Session session_;
};

// The SessionOptions a RunConfig implies (one thread at a time, namespaces as configured).
SessionOptions session_options(const GuestRunSpec& spec);
// The policy a RunConfig selects: round-robin, or under chaos the configured heuristic and seed.
std::unique_ptr<SchedulePolicy> schedule_policy(const RunConfig& config);

} // namespace hermit::tracer
