#pragma once
// Virtualizer: the interceptor that makes `hermit run` deterministic. It answers every guest question whose
// answer depends on the host or on when the guest runs: clocks (syscalls, the vDSO and rdtsc), timers
// (alarm/setitimer, POSIX timers, timerfds: TimerSource on the virtual clock), randomness
// (getrandom, /dev/urandom, AT_RANDOM), CPUID, uname, sysinfo, CPU counts and affinity, resource usage,
// and file metadata (stat times, inode and device numbers, directory order). docs/USER_GUIDE.md ("What is
// virtualized") lists exactly what is virtualized and what is not.
//
// Use: construct it (it probes the host and applies --strict), add it to the Session as an interceptor,
// call on_exec() at every PTRACE_EVENT_EXEC stop, and timestamp events with clock().elapsed_ns().

#include "EventSink.h"
#include "GuestLauncher.h"
#include "SyscallInterceptor.h"
#include "TimerSource.h"
#include "virt/AlarmTimers.h"
#include "virt/CpuidTable.h"
#include "virt/EphemeralPorts.h"
#include "virt/FileMetadata.h"
#include "virt/GuestRandom.h"
#include "virt/InodeTable.h"
#include "virt/InstructionEmulator.h"
#include "virt/PosixTimers.h"
#include "virt/StatInTracer.h"
#include "virt/TimerFds.h"
#include "virt/VdsoClockPage.h"
#include "virt/VirtualClock.h"
#include "virt/VirtualFiles.h"

#include "formats/Recording.h"

#include <sys/types.h>

#include <map>
#include <optional>
#include <string>
#include <utility>

namespace hermit::tracer {

struct VirtualizationOptions {
    uint64_t seed = 0;
    int64_t epoch_ns = virt::VirtualClock::kDefaultEpochNs;
    // Files changed since this host time are the run's (virt::FileMetadata); nullopt: since it starts.
    std::optional<int64_t> changes_since_ns;
    // Missing CPUID faulting or rdtsc trapping is an error instead of a warning.
    bool strict = false;
    // Receives the RdtscEvent and CpuidEvent of emulated instructions; not owned, may be null.
    EventSink* sink = nullptr;
};

class Virtualizer : public SyscallInterceptor, public TimerSource {
public:
    // Probes the host (HostProbe) and throws hermit::Error(E020/E021) under strict when a feature is missing.
    explicit Virtualizer(const VirtualizationOptions& options);

    std::set<int> trapped_syscalls() const override;
    // The stat family, which StatInTracer answers from outside the guest, and the clock, random, host
    // and usage questions, whose answers are only written to guest memory.
    std::set<int> notifiable_syscalls() const override;
    // Not while the process's vDSO clock page waits for its injected mmap. An open of a file it generates
    // is redirected with SyscallDecision::replace_path, which the Session also does from a notification.
    bool answers_without_stop(Task& task, const SyscallStop& stop) const override;
    std::vector<ConditionalTrap> conditionally_trapped_syscalls() const override;
    SyscallDecision on_entry(Task& task, const SyscallStop& stop) override;
    // An open of a random device that file_overlays() mounted over: the kernel opens the file.
    bool answers_untraced(Task& task, const SyscallStop& stop) override;
    void on_entry_answered_in_front(Task& task, const SyscallStop& stop, int64_t result) override;
    void on_resume(Task& task) override; // the vDSO clock page (VdsoClockPage)
    void on_opened_for_guest(Task& task, const SyscallStop& stop, int file,
                             const OpenedFileInfo& info) override;
    void on_exit(Task& task, const SyscallStop& stop, int64_t& result) override;
    bool handles_faults() const override { return true; }
    bool on_fault(Task& task, int signal) override;

    // At the stop after a successful execve: patches the new vDSO and rewrites the AT_RANDOM bytes.
    void on_exec(Task& task) override;

    bool fire_due_timers() override;
    bool advance_to_next_timer() override;
    std::optional<uint64_t> next_timer_deadline() const override;
    bool armed() const override;

    // Files to mount over guest paths when the guest has its own mount namespace (the random devices).
    std::vector<FileOverlay> file_overlays();
    // The guest's read-only open of a file the Virtualizer generates (as the guest spelled it, before any
    // redirection): the path it opens, else nullopt.
    static std::optional<std::string> opened_virtual_file(Task& task, const SyscallStop& stop);

    const virt::VirtualClock& clock() const { return clock_; }
    virt::VirtualClock& clock() { return clock_; }
    const HostFacts& host_facts() const { return host_; }
    // Since when file changes are the run's (VirtualizationOptions::changes_since_ns).
    int64_t changes_since_ns() const { return metadata_.changes_since_ns(); }

private:
    using Emulation = SyscallDecision (Virtualizer::*)(Task&, const SyscallStop&);
    // One row per syscall emulated at entry.
    static const std::map<int, Emulation>& emulations();

    SyscallDecision emulate_clock_gettime(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_clock_getres(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_gettimeofday(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_time(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_nanosleep(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_clock_nanosleep(Task& task, const SyscallStop& stop);
    // The sleep of `duration_ns` both make, writing the time left at `remaining_address` when interrupted.
    SyscallDecision sleep(Task& task, int64_t duration_ns, uint64_t remaining_address);
    SyscallDecision emulate_getrandom(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_uname(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_sysinfo(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_sched_getaffinity(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_getcpu(Task& task, const SyscallStop& stop);
    SyscallDecision refuse_rseq(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_times(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_getrusage(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_alarm(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_setitimer(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_getitimer(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timer_create(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timer_settime(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timer_gettime(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timer_getoverrun(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timer_delete(Task& task, const SyscallStop& stop);
    SyscallDecision create_timerfd(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timerfd_settime(Task& task, const SyscallStop& stop);
    SyscallDecision emulate_timerfd_gettime(Task& task, const SyscallStop& stop);
    SyscallDecision redirect_open(Task& task, const SyscallStop& stop);
    // Port 0 of an internet socket: a port from EphemeralPorts instead of the kernel's random one.
    SyscallDecision bind_socket(Task& task, const SyscallStop& stop);
    SyscallDecision connect_socket(Task& task, const SyscallStop& stop);
    void finish_redirected_open(Task& task, int64_t result);
    // The guest's `path` is a random device, and the file file_overlays() mounted over it.
    bool opens_mounted_random_device(Task& task, const std::string& path) const;
    void finish_timerfd_create(Task& task, const SyscallStop& stop, int64_t result);

    // An open redirected to a generated file (SyscallDecision::replace_path), waiting for its exit.
    struct PendingOpen {
        std::string host_path;
        bool remove_after_open = false;
        uint64_t start_offset = 0;
    };

    HostFacts host_;
    EventSink* sink_;
    virt::VirtualClock clock_;
    virt::VdsoClockPage vdso_page_;
    virt::AlarmTimers alarms_{clock_};
    virt::PosixTimers posix_timers_{clock_};
    virt::TimerFds timer_fds_{clock_};
    virt::GuestRandom guest_random_;
    virt::CpuidTable cpuid_;
    virt::InstructionEmulator instructions_;
    virt::FileMetadata metadata_;
    virt::VirtualFiles files_;
    virt::EphemeralPorts ports_;
    // The file file_overlays() mounts over the random devices, by device and inode.
    std::optional<std::pair<dev_t, ino_t>> mounted_random_device_;
    std::map<pid_t, PendingOpen> pending_opens_;
};

} // namespace hermit::tracer
