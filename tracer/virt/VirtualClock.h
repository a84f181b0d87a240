#pragma once
// VirtualClock: the one logical clock of a run. It starts at 0 when the guest starts and only moves
// forward, by a fixed step at every virtualized event and by the requested duration when the guest sleeps, so
// every clock the guest can read is a pure function of the sequence of events it caused.
//
// Guest views of the clock (all in ns):
//   CLOCK_REALTIME, *_COARSE, *_ALARM    epoch + elapsed
//   times of files the run changes       epoch + elapsed + the steps saw_file_time took (file_time_ns)
//   CLOCK_TAI                            epoch + elapsed + 37 s (the TAI-UTC offset since 2017)
//   CLOCK_MONOTONIC, *_RAW, *_COARSE,
//   CLOCK_BOOTTIME, *_ALARM              kBootOffsetNs + elapsed (the virtual machine "booted" earlier)
//   process and thread CPU-time clocks   busy time: elapsed minus time spent sleeping
//   time stamp counter                   (kBootOffsetNs + elapsed) * 3 at a virtual 3 GHz, strictly
//                                        increasing per read

#include <cstdint>
#include <ctime>
#include <optional>

namespace hermit::tracer::virt {

class VirtualClock {
public:
    // 2000-01-01T00:00:00Z.
    static constexpr int64_t kDefaultEpochNs = 946684800LL * 1000000000LL;
    static constexpr uint64_t kEventStepNs = 1000;
    static constexpr uint64_t kBootOffsetNs = 1000ULL * 1000000000ULL;
    static constexpr uint64_t kTscTicksPerNs = 3;
    static constexpr int64_t kTaiOffsetNs = 37LL * 1000000000LL;

    explicit VirtualClock(int64_t epoch_ns = kDefaultEpochNs) : epoch_ns_(epoch_ns) {}

    int64_t epoch_ns() const { return epoch_ns_; }
    // Logical ns since the guest started (the `time` of events).
    uint64_t elapsed_ns() const { return elapsed_ns_; }
    uint64_t busy_ns() const { return busy_ns_; }

    // One virtualized event happened: an emulated or rewritten syscall, rdtsc, cpuid.
    void tick();
    // The guest slept for `duration_ns`.
    void sleep(uint64_t duration_ns);
    // The guest slept until elapsed time `deadline_ns` (a deadline already passed moves nothing).
    void sleep_until(uint64_t deadline_ns);
    // The guest was shown a file time: the time of the run's file changes steps forward to it if it is
    // behind, so what the run writes is newer than what it read (`make` relinks a program whose object
    // it just rebuilt). The guest's clocks stay: what they show does not depend on the files' times.
    void saw_file_time(int64_t realtime_ns);

    // The value of a guest clock, or nullopt for a clock id the kernel would reject with EINVAL.
    std::optional<int64_t> read(clockid_t clock) const;
    // Resolution the guest sees for a clock (nullopt: EINVAL).
    std::optional<int64_t> resolution(clockid_t clock) const;
    // Whether clock_nanosleep accepts this clock.
    static bool sleepable(clockid_t clock);

    int64_t realtime_ns() const { return epoch_ns_ + static_cast<int64_t>(elapsed_ns_); }
    int64_t file_time_ns() const { return realtime_ns() + file_steps_ns_; }
    int64_t monotonic_ns() const { return static_cast<int64_t>(kBootOffsetNs + elapsed_ns_); }

    // Next time stamp counter value; strictly greater than any earlier one.
    uint64_t next_tsc();

private:
    int64_t epoch_ns_;
    int64_t file_steps_ns_ = 0;
    uint64_t elapsed_ns_ = 0;
    uint64_t busy_ns_ = 0;
    uint64_t last_tsc_ = 0;
};

} // namespace hermit::tracer::virt
