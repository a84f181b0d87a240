#include "GuestRun.h"

#include "virt/VirtualClock.h"

namespace hermit::tracer {

namespace {

VirtualizationOptions virtualization_options(const GuestRunSpec& spec, EventSink* sink) {
    const RunConfig& config = spec.config;
    VirtualizationOptions options;
    options.seed = config.seed;
    options.epoch_ns = config.epoch_ns != 0 ? config.epoch_ns : virt::VirtualClock::kDefaultEpochNs;
    options.strict = config.strict;
    options.changes_since_ns = spec.changes_since_ns;
    options.sink = sink;
    return options;
}

} // namespace

SessionOptions session_options(const GuestRunSpec& spec) {
    SessionOptions options;
    options.argv = spec.argv;
    options.env = spec.env;
    options.cwd = spec.cwd;
    options.stand_ins = spec.stand_ins;
    options.stdin_file = spec.stdin_file;
    options.stdin_offset = spec.stdin_offset;
    options.null_outputs = spec.null_outputs;
    options.namespaces = spec.config.namespaces;
    options.deterministic_scheduling = true;
    options.interactive = !spec.replaying;
    options.own_mounts = spec.own_mounts;
    options.throwaway_directory = spec.throwaway_directory;
    options.before_exec = spec.before_exec;
    return options;
}

std::unique_ptr<SchedulePolicy> schedule_policy(const RunConfig& config) {
    SchedulePolicyOptions options;
    if (config.chaos) {
        options.heuristic = config.sched_heuristic; // "none": round-robin, chaos or not
    }
    options.seed = config.seed;
    options.pct_depth = config.pct_depth;
    return make_schedule_policy(options);
}

GuestRun::GuestRun(GuestRunSpec spec)
    : virtualizer_(virtualization_options(spec, this)), session_([&] {
          // Ask the guest launcher only for the traps the host offers (HostProbe, run by the Virtualizer).
          SessionOptions options = session_options(spec);
          options.trap_cpuid = virtualizer_.host_facts().cpuid_faulting;
          options.trap_rdtsc = virtualizer_.host_facts().tsc_trapping;
          options.overlays = virtualizer_.file_overlays();
          options.overlays.insert(options.overlays.end(), spec.overlays.begin(), spec.overlays.end());
          return options;
      }()) {
    session_.set_schedule_policy(schedule_policy(spec.config));
    session_.set_time_source([this] { return virtualizer_.clock().elapsed_ns(); });
    session_.set_virtual_clock(&virtualizer_.clock());
    session_.set_timer_source(&virtualizer_);
}

void GuestRun::add_interceptor(SyscallInterceptor* interceptor) {
    session_.add_interceptor(interceptor);
}

void GuestRun::add_event_sink(EventSink* sink) {
    sinks_.push_back(sink);
    session_.add_event_sink(sink);
}

void GuestRun::set_schedule_policy(std::unique_ptr<SchedulePolicy> policy) {
    session_.set_schedule_policy(std::move(policy));
}

int GuestRun::run() {
    session_.add_interceptor(&virtualizer_);
    return session_.run();
}

void GuestRun::on_event(const Event& event) {
    for (EventSink* sink : sinks_) {
        sink->on_event(event);
    }
}

} // namespace hermit::tracer
