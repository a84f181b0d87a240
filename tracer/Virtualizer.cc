#include "Virtualizer.h"

#include "ProcFs.h"
#include "ProcessMemoryFile.h"
#include "SyscallTable.h"
#include "Task.h"
#include "virt/AuxiliaryVector.h"
#include "virt/HostProbe.h"
#include "virt/VdsoPatcher.h"

#include <elf.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <spdlog/spdlog.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysinfo.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/times.h>
#include <sys/utsname.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <vector>

namespace hermit::tracer {
namespace {

constexpr int64_t kNsPerSecond = 1000000000;
// times() and /proc count in USER_HZ ticks.
constexpr int64_t kClockTicksPerSecond = 100;
constexpr uint64_t kVirtualRamBytes = 4ULL << 30;
constexpr uint64_t kVirtualFreeRamBytes = 3ULL << 30;

// Positions a descriptor the guest holds (its duplicate shares the open file, and so the offset).
void seek_guest_descriptor(pid_t host_pid, int guest_fd, uint64_t offset) {
    const UniqueFd duplicate = duplicate_guest_descriptor(host_pid, guest_fd);
    if (duplicate.get() < 0 || lseek(duplicate.get(), static_cast<off_t>(offset), SEEK_SET) < 0) {
        spdlog::warn("cannot position the guest's descriptor {}: {}", guest_fd, std::strerror(errno));
    }
}

timespec to_timespec(int64_t ns) {
    return {ns / kNsPerSecond, ns % kNsPerSecond};
}
timeval to_timeval(int64_t ns) {
    return {ns / kNsPerSecond, (ns % kNsPerSecond) / 1000};
}

SyscallDecision emulated(int64_t result) {
    return SyscallDecision::emulate(result);
}
SyscallDecision failed(int error) {
    return SyscallDecision::emulate(-error);
}

template <typename T> SyscallDecision write_result(Task& task, uint64_t address, const T& value) {
    return task.write_value(address, value) ? emulated(0) : failed(EFAULT);
}

bool is_open_syscall(int number) {
    return number == SYS_open || number == SYS_openat || number == SYS_openat2;
}

} // namespace

// The stat family (emulate_stat, or rewritten at exit when the tracer cannot answer it exactly) and
// getdents64 (rewritten at exit) are not in the table.
const std::map<int, Virtualizer::Emulation>& Virtualizer::emulations() {
    static const std::map<int, Emulation> table = {
        {SYS_clock_gettime, &Virtualizer::emulate_clock_gettime},
        {SYS_clock_getres, &Virtualizer::emulate_clock_getres},
        {SYS_gettimeofday, &Virtualizer::emulate_gettimeofday},
        {SYS_time, &Virtualizer::emulate_time},
        {SYS_nanosleep, &Virtualizer::emulate_nanosleep},
        {SYS_clock_nanosleep, &Virtualizer::emulate_clock_nanosleep},
        {SYS_getrandom, &Virtualizer::emulate_getrandom},
        {SYS_uname, &Virtualizer::emulate_uname},
        {SYS_sysinfo, &Virtualizer::emulate_sysinfo},
        {SYS_sched_getaffinity, &Virtualizer::emulate_sched_getaffinity},
        {SYS_getcpu, &Virtualizer::emulate_getcpu},
        {SYS_rseq, &Virtualizer::refuse_rseq},
        {SYS_times, &Virtualizer::emulate_times},
        {SYS_getrusage, &Virtualizer::emulate_getrusage},
        {SYS_alarm, &Virtualizer::emulate_alarm},
        {SYS_setitimer, &Virtualizer::emulate_setitimer},
        {SYS_getitimer, &Virtualizer::emulate_getitimer},
        {SYS_timer_create, &Virtualizer::emulate_timer_create},
        {SYS_timer_settime, &Virtualizer::emulate_timer_settime},
        {SYS_timer_gettime, &Virtualizer::emulate_timer_gettime},
        {SYS_timer_getoverrun, &Virtualizer::emulate_timer_getoverrun},
        {SYS_timer_delete, &Virtualizer::emulate_timer_delete},
        {SYS_timerfd_create, &Virtualizer::create_timerfd},
        {SYS_timerfd_settime, &Virtualizer::emulate_timerfd_settime},
        {SYS_timerfd_gettime, &Virtualizer::emulate_timerfd_gettime},
        {SYS_open, &Virtualizer::redirect_open},
        {SYS_openat, &Virtualizer::redirect_open},
        {SYS_openat2, &Virtualizer::redirect_open},
        {SYS_bind, &Virtualizer::bind_socket},
        {SYS_connect, &Virtualizer::connect_socket},
    };
    return table;
}

Virtualizer::Virtualizer(const VirtualizationOptions& options)
    : host_(virt::probe_host()), sink_(options.sink), clock_(options.epoch_ns),
      guest_random_(options.seed, virt::GuestRandom::Stream::GuestData), instructions_(cpuid_, clock_),
      metadata_(clock_, options.changes_since_ns), files_(guest_random_, clock_) {
    virt::enforce_host_requirements(host_, options.strict);
}

std::set<int> Virtualizer::trapped_syscalls() const {
    std::set<int> numbers;
    for (const auto& [number, emulation] : emulations()) {
        numbers.insert(number);
    }
    numbers.erase(SYS_open);
    numbers.erase(SYS_openat);
    numbers.insert(virt::StatInTracer::stat_syscalls().begin(), virt::StatInTracer::stat_syscalls().end());
    numbers.insert({SYS_getdents64, SYS_utimensat, SYS_futimesat, SYS_utimes, SYS_utime});
    return numbers;
}

// Read-only opens too: the Session opens a file the Virtualizer generates in its place (replace_path).
// Not the sleeps, timers and timerfds: they move the clock or arm signals, or need their exit.
std::set<int> Virtualizer::notifiable_syscalls() const {
    std::set<int> numbers = virt::StatInTracer::stat_syscalls();
    numbers.insert({SYS_open,
                    SYS_openat,
                    SYS_getdents64,
                    SYS_clock_gettime,
                    SYS_clock_getres,
                    SYS_gettimeofday,
                    SYS_time,
                    SYS_getrandom,
                    SYS_uname,
                    SYS_sysinfo,
                    SYS_sched_getaffinity,
                    SYS_getcpu,
                    SYS_rseq,
                    SYS_times,
                    SYS_getrusage,
                    SYS_bind,
                    SYS_connect,
                    SYS_utimensat,
                    SYS_futimesat,
                    SYS_utimes,
                    SYS_utime});
    return numbers;
}

bool Virtualizer::answers_without_stop(Task& task, const SyscallStop& /*stop*/) const {
    return !vdso_page_.maps_at_next_fold(task.host_pid());
}

// Only read-only opens can be redirected to a virtual file, and the filter can tell them apart: opens
// for writing (a third of git's, for example) then cost no stop.
std::vector<ConditionalTrap> Virtualizer::conditionally_trapped_syscalls() const {
    std::vector<ConditionalTrap> traps;
    for (int number : {SYS_open, SYS_openat}) {
        traps.push_back({number, static_cast<unsigned>(open_flags_argument(number)), O_ACCMODE, O_RDONLY});
    }
    return traps;
}

SyscallDecision Virtualizer::on_entry(Task& task, const SyscallStop& stop) {
    if (virt::FileMetadata::sets_file_times(stop.number)) {
        metadata_.on_set_file_times(task, stop);
        return SyscallDecision::pass(); // not a question: the clock stays
    }
    const bool rewritten_at_exit =
        virt::StatInTracer::is_stat_syscall(stop.number) || stop.number == SYS_getdents64;
    const auto row = emulations().find(stop.number);
    // Opens for writing reach here only when another interceptor traps every open: like untrapped ones,
    // they must not move the clock.
    const bool untrapped_open = (stop.number == SYS_open || stop.number == SYS_openat) &&
                                (stop.args[open_flags_argument(stop.number)] & O_ACCMODE) != O_RDONLY;
    if ((!rewritten_at_exit && row == emulations().end()) || untrapped_open) {
        // Only the guest's own questions move the clock: syscalls trapped for other interceptors can stop
        // a variable number of times (the scheduler re-probes blocking calls until they can complete).
        return SyscallDecision::pass();
    }
    vdso_page_.fold(task, clock_);
    clock_.tick();
    spdlog::trace("virtual time {} ns: syscall {} of thread {}", clock_.elapsed_ns(), stop.number,
                  task.tid());
    if (virt::StatInTracer::is_stat_syscall(stop.number)) {
        return metadata_.emulate_stat(task, stop);
    }
    if (rewritten_at_exit) {
        return SyscallDecision::stop_at_exit();
    }
    return (this->*(row->second))(task, stop);
}

void Virtualizer::on_entry_answered_in_front(Task& task, const SyscallStop& stop, int64_t result) {
    if (!virt::StatInTracer::is_stat_syscall(stop.number)) {
        on_entry(task, stop);
        return;
    }
    // As on_entry(), without looking at the host's file.
    vdso_page_.fold(task, clock_);
    clock_.tick();
    metadata_.on_recorded_stat(task, stop, result);
}

void Virtualizer::on_resume(Task& task) {
    vdso_page_.refresh(task, clock_);
}

void Virtualizer::on_exit(Task& task, const SyscallStop& stop, int64_t& result) {
    if (is_open_syscall(stop.number)) {
        finish_redirected_open(task, result);
        return;
    }
    if (stop.number == SYS_timerfd_create) {
        finish_timerfd_create(task, stop, result);
        return;
    }
    if (result < 0) {
        return;
    }
    if (virt::StatInTracer::is_stat_syscall(stop.number)) {
        metadata_.rewrite_stat_result(task, stop);
    } else if (stop.number == SYS_getdents64) {
        metadata_.rewrite_directory_entries(task, stop, result);
    }
}

bool Virtualizer::on_fault(Task& task, int signal) {
    if (signal != SIGSEGV) {
        return false;
    }
    user_regs_struct registers = task.registers();
    clock_.tick();
    const auto answer = instructions_.emulate(registers, task);
    if (!answer) {
        return false;
    }
    task.set_registers(registers);
    if (sink_) {
        Event event;
        event.time = clock_.elapsed_ns();
        event.tid = task.tid();
        event.pid = task.pid();
        std::visit([&event](const auto& payload) { event.payload = payload; }, *answer);
        sink_->on_event(event);
    }
    return true;
}

void Virtualizer::on_exec(Task& task) {
    metadata_.on_exec(task);
    const auto auxv = virt::AuxiliaryVector::of_process(task.host_tid());
    if (const auto random_bytes = auxv.value(AT_RANDOM)) {
        uint8_t bytes[16];
        guest_random_.fill(bytes, sizeof bytes);
        if (!task.write(*random_bytes, bytes, sizeof bytes)) {
            spdlog::warn("cannot rewrite AT_RANDOM of thread {}", task.tid());
        }
    }
    posix_timers_.forget(task.host_pid()); // exec deletes a process's POSIX timers
    if (const auto vdso = auxv.value(AT_SYSINFO_EHDR)) {
        const std::vector<virt::VdsoFunction> functions = virt::vdso_functions(task, *vdso);
        ProcessMemoryFile text_writer(task.host_tid()); // the vDSO's text is read-only
        const auto patched = virt::patch_vdso(text_writer, functions);
        std::vector<uint64_t> clock_entries;
        for (const virt::VdsoFunction& function : functions) {
            // clock_gettime is an alias of __vdso_clock_gettime.
            if ((function.name == "__vdso_clock_gettime" || function.name == "clock_gettime") &&
                function.size >= virt::VdsoClockPage::entry_jump().size() &&
                std::find(clock_entries.begin(), clock_entries.end(), function.address) ==
                    clock_entries.end()) {
                clock_entries.push_back(function.address);
            }
        }
        vdso_page_.on_exec(task.host_pid(), std::move(clock_entries));
        spdlog::debug("vDSO of thread {}: patched {} functions", task.tid(), patched.size());
        if (patched.empty()) {
            spdlog::warn("could not patch the vDSO of thread {}: its clock reads are not virtualized",
                         task.tid());
        }
    }
}

SyscallDecision Virtualizer::emulate_clock_gettime(Task& task, const SyscallStop& stop) {
    const auto value = clock_.read(static_cast<clockid_t>(stop.args[0]));
    if (!value) {
        return failed(EINVAL);
    }
    return write_result(task, stop.args[1], to_timespec(*value));
}

SyscallDecision Virtualizer::emulate_clock_getres(Task& task, const SyscallStop& stop) {
    const auto resolution = clock_.resolution(static_cast<clockid_t>(stop.args[0]));
    if (!resolution) {
        return failed(EINVAL);
    }
    if (stop.args[1] == 0) {
        return emulated(0);
    }
    return write_result(task, stop.args[1], to_timespec(*resolution));
}

SyscallDecision Virtualizer::emulate_gettimeofday(Task& task, const SyscallStop& stop) {
    if (stop.args[0] != 0 && !task.write_value(stop.args[0], to_timeval(clock_.realtime_ns()))) {
        return failed(EFAULT);
    }
    // The time zone is always UTC (struct timezone {minuteswest, dsttime}).
    if (stop.args[1] != 0 && !task.write_value(stop.args[1], std::array<int32_t, 2>{0, 0})) {
        return failed(EFAULT);
    }
    return emulated(0);
}

SyscallDecision Virtualizer::emulate_time(Task& task, const SyscallStop& stop) {
    const int64_t seconds = clock_.realtime_ns() / kNsPerSecond;
    if (stop.args[0] != 0 && !task.write_value(stop.args[0], seconds)) {
        return failed(EFAULT);
    }
    return emulated(seconds);
}

namespace {

// Reads and validates a sleep request; nullopt with `error` set when the kernel would fail.
std::optional<int64_t> read_duration(Task& task, uint64_t address, int& error) {
    const auto request = task.read_value<timespec>(address);
    if (!request) {
        error = EFAULT;
        return std::nullopt;
    }
    if (request->tv_sec < 0 || request->tv_nsec < 0 || request->tv_nsec >= kNsPerSecond) {
        error = EINVAL;
        return std::nullopt;
    }
    return request->tv_sec * kNsPerSecond + request->tv_nsec;
}

} // namespace

SyscallDecision Virtualizer::emulate_nanosleep(Task& task, const SyscallStop& stop) {
    int error = 0;
    const auto duration = read_duration(task, stop.args[0], error);
    if (!duration) {
        return failed(error);
    }
    return sleep(task, *duration, stop.args[1]);
}

// A sleep parks its thread (Retry: the Session sets the deadline from the arguments) until virtual time
// reaches the deadline, which it does when every other thread waits too, or a signal ends it first, as
// it would natively: a parent's kill then finds its child asleep. Back with the token, the thread either
// reached the deadline (the clock is moved there if the schedule got it the token first: a replay) or
// was woken by a deliverable signal, which it takes on its way out of the EINTR.
SyscallDecision Virtualizer::sleep(Task& task, int64_t duration_ns, uint64_t remaining_address) {
    const std::optional<uint64_t> deadline = task.wait_deadline();
    if (!deadline) {
        if (duration_ns == 0) {
            SyscallDecision decision = emulated(0);
            decision.yield = true;
            return decision;
        }
        return SyscallDecision::retry();
    }
    const procfs::SignalDispositions signals = procfs::signal_dispositions(task.host_tid());
    if (signals.pending_deliverable() && clock_.elapsed_ns() < *deadline) {
        const int64_t left = static_cast<int64_t>(*deadline - clock_.elapsed_ns());
        const timespec remaining{static_cast<time_t>(left / 1'000'000'000),
                                 static_cast<long>(left % 1'000'000'000)};
        if (remaining_address != 0) {
            task.write_value(remaining_address, remaining);
        }
        return failed(EINTR);
    }
    clock_.sleep_until(*deadline);
    SyscallDecision decision = emulated(0);
    decision.yield = true;
    return decision;
}

SyscallDecision Virtualizer::emulate_clock_nanosleep(Task& task, const SyscallStop& stop) {
    const auto clock = static_cast<clockid_t>(stop.args[0]);
    if (!virt::VirtualClock::sleepable(clock)) {
        return failed(EINVAL);
    }
    int error = 0;
    const auto requested = read_duration(task, stop.args[2], error);
    if (!requested) {
        return failed(error);
    }
    int64_t duration = *requested;
    const bool absolute = (stop.args[1] & TIMER_ABSTIME) != 0;
    if (absolute) {
        duration = std::max<int64_t>(0, *requested - *clock_.read(clock));
    }
    // An absolute sleep reports no time left; a relative one does, as nanosleep.
    return sleep(task, duration, absolute ? 0 : stop.args[3]);
}

SyscallDecision Virtualizer::emulate_alarm(Task& task, const SyscallStop& stop) {
    itimerval value{};
    value.it_value.tv_sec = static_cast<time_t>(static_cast<unsigned int>(stop.args[0]));
    const itimerval previous = alarms_.set(task.host_pid(), ITIMER_REAL, value);
    // alarm(2) reports the seconds left, rounded to the nearest second (and never 0 while armed).
    long seconds = previous.it_value.tv_sec + (previous.it_value.tv_usec >= 500000 ? 1 : 0);
    if (seconds == 0 && (previous.it_value.tv_sec != 0 || previous.it_value.tv_usec != 0)) {
        seconds = 1;
    }
    return emulated(seconds);
}

SyscallDecision Virtualizer::emulate_setitimer(Task& task, const SyscallStop& stop) {
    const int which = static_cast<int>(stop.args[0]);
    if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF) {
        return failed(EINVAL);
    }
    itimerval value{};
    if (stop.args[1] != 0) {
        const auto requested = task.read_value<itimerval>(stop.args[1]);
        if (!requested) {
            return failed(EFAULT);
        }
        value = *requested;
    }
    if (!virt::IntervalTimer::valid(value.it_value) || !virt::IntervalTimer::valid(value.it_interval)) {
        return failed(EINVAL);
    }
    const itimerval previous = alarms_.set(task.host_pid(), which, value);
    return stop.args[2] == 0 ? emulated(0) : write_result(task, stop.args[2], previous);
}

SyscallDecision Virtualizer::emulate_getitimer(Task& task, const SyscallStop& stop) {
    const int which = static_cast<int>(stop.args[0]);
    if (which != ITIMER_REAL && which != ITIMER_VIRTUAL && which != ITIMER_PROF) {
        return failed(EINVAL);
    }
    return write_result(task, stop.args[1], alarms_.get(task.host_pid(), which));
}

bool Virtualizer::fire_due_timers() {
    const bool alarms = alarms_.fire_due();
    const bool posix_timers = posix_timers_.fire_due();
    const bool timer_fds = timer_fds_.fire_due();
    return alarms || posix_timers || timer_fds;
}

std::optional<uint64_t> Virtualizer::next_timer_deadline() const {
    std::optional<uint64_t> deadline;
    for (const auto candidate :
         {alarms_.next_deadline(), posix_timers_.next_deadline(), timer_fds_.next_deadline()}) {
        if (candidate && (!deadline || *candidate < *deadline)) {
            deadline = candidate;
        }
    }
    return deadline;
}

bool Virtualizer::armed() const {
    return next_timer_deadline().has_value();
}

bool Virtualizer::advance_to_next_timer() {
    const std::optional<uint64_t> deadline = next_timer_deadline();
    if (!deadline) {
        return false;
    }
    clock_.sleep_until(*deadline);
    fire_due_timers();
    return true;
}

namespace {

// The host tid of the thread with guest tid `tid` in process `host_pid`, or 0 when there is none.
pid_t host_thread_of(pid_t host_pid, int32_t tid) {
    std::error_code error;
    for (const auto& entry :
         std::filesystem::directory_iterator("/proc/" + std::to_string(host_pid) + "/task", error)) {
        const pid_t host_tid = static_cast<pid_t>(std::stol(entry.path().filename().string()));
        if (procfs::guest_ids(host_tid).tid == tid) {
            return host_tid;
        }
    }
    return 0;
}

// Reads the new setting of timer_settime/timerfd_settime; nullopt with `error` set when the kernel fails.
std::optional<itimerspec> read_timer_setting(Task& task, uint64_t address, int& error) {
    const auto value = task.read_value<itimerspec>(address);
    if (!value) {
        error = EFAULT;
        return std::nullopt;
    }
    if (!virt::IntervalTimer::valid(value->it_value) || !virt::IntervalTimer::valid(value->it_interval)) {
        error = EINVAL;
        return std::nullopt;
    }
    return value;
}

// The answer of timer_settime and timerfd_settime: EINVAL when there was no such timer (`previous` is
// nullopt), else success, with the previous setting written to `old_value` when the guest asked for it.
SyscallDecision settime_answer(Task& task, uint64_t old_value, const std::optional<itimerspec>& previous) {
    if (!previous) {
        return failed(EINVAL);
    }
    return old_value == 0 ? emulated(0) : write_result(task, old_value, *previous);
}

} // namespace

SyscallDecision Virtualizer::emulate_timer_create(Task& task, const SyscallStop& stop) {
    const auto clock_id = static_cast<clockid_t>(stop.args[0]);
    if (!virt::PosixTimers::supports(clock_id)) {
        return failed(EINVAL);
    }
    virt::PosixTimers::Notification notification;
    if (stop.args[1] != 0) {
        const auto event = task.read_value<sigevent>(stop.args[1]);
        if (!event) {
            return failed(EFAULT);
        }
        notification.kind = event->sigev_notify;
        notification.signal = event->sigev_signo;
        notification.value = event->sigev_value;
        if (notification.kind != SIGEV_NONE && notification.kind != SIGEV_SIGNAL &&
            notification.kind != SIGEV_THREAD_ID) {
            return failed(EINVAL);
        }
        if (notification.kind != SIGEV_NONE && (notification.signal <= 0 || notification.signal > SIGRTMAX)) {
            return failed(EINVAL);
        }
        if (notification.kind == SIGEV_THREAD_ID) {
            notification.host_tid = host_thread_of(task.host_pid(), event->_sigev_un._tid);
            if (notification.host_tid == 0) {
                return failed(EINVAL);
            }
        }
    }
    notification.value_is_timer_id = stop.args[1] == 0;
    const int id = posix_timers_.create(task.host_pid(), clock_id, notification);
    if (!task.write_value(stop.args[2], static_cast<int32_t>(id))) {
        posix_timers_.remove(task.host_pid(), id);
        return failed(EFAULT);
    }
    return emulated(0);
}

SyscallDecision Virtualizer::emulate_timer_settime(Task& task, const SyscallStop& stop) {
    int error = 0;
    const auto value = read_timer_setting(task, stop.args[2], error);
    if (!value) {
        return failed(error);
    }
    return settime_answer(task, stop.args[3],
                          posix_timers_.set(task.host_pid(), static_cast<int>(stop.args[0]),
                                            (stop.args[1] & TIMER_ABSTIME) != 0, *value));
}

SyscallDecision Virtualizer::emulate_timer_gettime(Task& task, const SyscallStop& stop) {
    const auto current = posix_timers_.get(task.host_pid(), static_cast<int>(stop.args[0]));
    return current ? write_result(task, stop.args[1], *current) : failed(EINVAL);
}

SyscallDecision Virtualizer::emulate_timer_getoverrun(Task& task, const SyscallStop& stop) {
    const auto overrun = posix_timers_.overrun(task.host_pid(), static_cast<int>(stop.args[0]));
    return overrun ? emulated(*overrun) : failed(EINVAL);
}

SyscallDecision Virtualizer::emulate_timer_delete(Task& task, const SyscallStop& stop) {
    return posix_timers_.remove(task.host_pid(), static_cast<int>(stop.args[0])) ? emulated(0)
                                                                                 : failed(EINVAL);
}

SyscallDecision Virtualizer::create_timerfd(Task& task, const SyscallStop& stop) {
    const auto clock_id = static_cast<clockid_t>(stop.args[0]);
    if (!virt::TimerFds::supports(clock_id) || (stop.args[1] & ~uint64_t{TFD_CLOEXEC | TFD_NONBLOCK}) != 0) {
        return failed(EINVAL);
    }
    // The kernel makes an eventfd instead (TFD_* and EFD_* flags are the same O_* bits); the exit stop
    // hands it to timer_fds_.
    user_regs_struct registers = task.registers();
    registers.orig_rax = SYS_eventfd2;
    registers.rdi = 0;
    task.set_registers(registers);
    return SyscallDecision::stop_at_exit();
}

void Virtualizer::finish_timerfd_create(Task& task, const SyscallStop& stop, int64_t result) {
    // The syscall instruction preserves argument registers, and compiled code may rely on that.
    user_regs_struct registers = task.registers();
    registers.rdi = stop.args[0];
    task.set_registers(registers);
    if (result >= 0 &&
        !timer_fds_.adopt(task.host_pid(), static_cast<int>(result), static_cast<clockid_t>(stop.args[0]))) {
        spdlog::warn("cannot follow the timerfd {} of process {}: it never expires", result, task.pid());
    }
}

SyscallDecision Virtualizer::emulate_timerfd_settime(Task& task, const SyscallStop& stop) {
    constexpr uint64_t kKnownFlags = TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET;
    if ((stop.args[1] & ~kKnownFlags) != 0) {
        return failed(EINVAL);
    }
    int error = 0;
    const auto value = read_timer_setting(task, stop.args[2], error);
    if (!value) {
        return failed(error);
    }
    return settime_answer(task, stop.args[3],
                          timer_fds_.set(task.host_pid(), static_cast<int>(stop.args[0]),
                                         (stop.args[1] & TFD_TIMER_ABSTIME) != 0, *value));
}

SyscallDecision Virtualizer::emulate_timerfd_gettime(Task& task, const SyscallStop& stop) {
    const auto current = timer_fds_.get(task.host_pid(), static_cast<int>(stop.args[0]));
    return current ? write_result(task, stop.args[1], *current) : failed(EINVAL);
}

SyscallDecision Virtualizer::emulate_getrandom(Task& task, const SyscallStop& stop) {
    constexpr uint64_t kKnownFlags = GRND_NONBLOCK | GRND_RANDOM | GRND_INSECURE;
    if (stop.args[2] & ~kKnownFlags) {
        return failed(EINVAL);
    }
    // The kernel returns at most INT_MAX & PAGE_MASK bytes per call.
    const uint64_t length = std::min<uint64_t>(stop.args[1], 0x7ffff000);
    std::vector<uint8_t> chunk;
    for (uint64_t done = 0; done < length;) {
        chunk.resize(std::min<uint64_t>(length - done, 1 << 16));
        guest_random_.fill(chunk.data(), chunk.size());
        if (!task.write(stop.args[0] + done, chunk.data(), chunk.size())) {
            return done > 0 ? emulated(static_cast<int64_t>(done)) : failed(EFAULT);
        }
        done += chunk.size();
    }
    return emulated(static_cast<int64_t>(length));
}

SyscallDecision Virtualizer::bind_socket(Task& task, const SyscallStop& stop) {
    const std::optional<int64_t> result = ports_.bind(task, stop);
    return result ? emulated(*result) : SyscallDecision::pass();
}

SyscallDecision Virtualizer::connect_socket(Task& task, const SyscallStop& stop) {
    ports_.before_connect(task, stop);
    return SyscallDecision::pass();
}

SyscallDecision Virtualizer::emulate_uname(Task& task, const SyscallStop& stop) {
    utsname name{};
    std::strcpy(name.sysname, "Linux");
    std::strcpy(name.nodename, "hermit");
    std::strcpy(name.release, "5.15.0-hermit");
    std::strcpy(name.version, "#1 SMP");
    std::strcpy(name.machine, "x86_64");
    std::strcpy(name.domainname, "(none)");
    return write_result(task, stop.args[0], name);
}

SyscallDecision Virtualizer::emulate_sysinfo(Task& task, const SyscallStop& stop) {
    struct sysinfo info {};
    info.uptime = clock_.monotonic_ns() / kNsPerSecond;
    info.totalram = kVirtualRamBytes;
    info.freeram = kVirtualFreeRamBytes;
    info.procs = 1;
    info.mem_unit = 1;
    return write_result(task, stop.args[0], info);
}

SyscallDecision Virtualizer::emulate_sched_getaffinity(Task& task, const SyscallStop& stop) {
    // Like the kernel: the buffer must hold whole longs and at least the mask of every possible CPU.
    const uint64_t length = stop.args[1];
    if (length < sizeof(uint64_t) || length % sizeof(uint64_t) != 0) {
        return failed(EINVAL);
    }
    const uint64_t mask = (1ULL << virt::CpuidTable::kLogicalCpus) - 1;
    if (!task.write_value(stop.args[2], mask)) {
        return failed(EFAULT);
    }
    return emulated(sizeof mask);
}

SyscallDecision Virtualizer::emulate_getcpu(Task& task, const SyscallStop& stop) {
    const uint32_t zero = 0;
    if ((stop.args[0] != 0 && !task.write_value(stop.args[0], zero)) ||
        (stop.args[1] != 0 && !task.write_value(stop.args[1], zero))) {
        return failed(EFAULT);
    }
    return emulated(0);
}

SyscallDecision Virtualizer::refuse_rseq(Task&, const SyscallStop&) {
    // The kernel writes the CPU a thread runs on into its registered rseq area, where glibc's sched_getcpu
    // reads it. Without rseq, glibc asks getcpu(2), which is virtualized.
    return failed(ENOSYS);
}

SyscallDecision Virtualizer::emulate_times(Task& task, const SyscallStop& stop) {
    const int64_t ticks_per_ns = kNsPerSecond / kClockTicksPerSecond;
    if (stop.args[0] != 0) {
        tms usage{};
        usage.tms_utime = static_cast<clock_t>(clock_.busy_ns() / ticks_per_ns);
        if (!task.write_value(stop.args[0], usage)) {
            return failed(EFAULT);
        }
    }
    return emulated(clock_.monotonic_ns() / ticks_per_ns);
}

SyscallDecision Virtualizer::emulate_getrusage(Task& task, const SyscallStop& stop) {
    const auto who = static_cast<int>(stop.args[0]);
    if (who != RUSAGE_SELF && who != RUSAGE_CHILDREN && who != RUSAGE_THREAD) {
        return failed(EINVAL);
    }
    rusage usage{};
    if (who != RUSAGE_CHILDREN) {
        usage.ru_utime = to_timeval(static_cast<int64_t>(clock_.busy_ns()));
    }
    return write_result(task, stop.args[1], usage);
}

std::optional<std::string> Virtualizer::opened_virtual_file(Task& task, const SyscallStop& stop) {
    if (!is_open_syscall(stop.number)) {
        return std::nullopt;
    }
    uint64_t flags = 0;
    if (stop.number != SYS_openat2) {
        flags = stop.args[open_flags_argument(stop.number)];
    } else {
        const auto how = task.read_value<open_how>(stop.args[2]);
        if (!how) {
            return std::nullopt;
        }
        flags = how->flags;
    }
    if ((flags & O_ACCMODE) != O_RDONLY) {
        return std::nullopt;
    }
    auto path = task.read_string(stop.args[path_argument(stop.number)]);
    return path && virt::VirtualFiles::replaced(*path) ? path : std::nullopt;
}

SyscallDecision Virtualizer::redirect_open(Task& task, const SyscallStop& stop) {
    const std::optional<std::string> path = opened_virtual_file(task, stop);
    if (!path) {
        return SyscallDecision::pass();
    }
    if (opens_mounted_random_device(task, *path)) {
        // The kernel opens hermit's file, refilled from the seed at each open in every run and replay
        // alike: nothing to record.
        files_.refresh_random_device();
        return SyscallDecision::untraced();
    }
    const auto replacement = files_.replacement(*path);
    pending_opens_[task.host_tid()] =
        PendingOpen{replacement->host_path, replacement->remove_after_open, replacement->start_offset};
    return SyscallDecision::replace_path(replacement->host_path);
}

bool Virtualizer::answers_untraced(Task& task, const SyscallStop& stop) {
    const std::optional<std::string> path = opened_virtual_file(task, stop);
    return path && opens_mounted_random_device(task, *path);
}

std::vector<FileOverlay> Virtualizer::file_overlays() {
    const std::string device = files_.random_device().string();
    // Refreshes write the file in place: it keeps this identity, which an open's guest view is compared with.
    struct stat mounted {};
    if (stat(device.c_str(), &mounted) == 0) {
        mounted_random_device_ = std::pair{mounted.st_dev, mounted.st_ino};
    }
    return {{device, "/dev/urandom"}, {device, "/dev/random"}};
}

bool Virtualizer::opens_mounted_random_device(Task& task, const std::string& path) const {
    if (!virt::VirtualFiles::is_random_device(path) || !mounted_random_device_) {
        return false;
    }
    // The guest's view: from its root, which the Task keeps (a walk through /proc/<tid>/root costs more).
    const Task::Directory& root = task.root_directory();
    struct stat opened {};
    return root.file.get() >= 0 && fstatat(root.file.get(), path.c_str() + 1, &opened, 0) == 0 &&
           std::pair{opened.st_dev, opened.st_ino} == *mounted_random_device_;
}

void Virtualizer::on_opened_for_guest(Task& task, const SyscallStop& /*stop*/, int file,
                                      const OpenedFileInfo& /*info*/) {
    // The guest gets this open file description: positioned here, it never sees the start.
    const auto pending = pending_opens_.find(task.host_tid());
    if (pending != pending_opens_.end() && pending->second.start_offset != 0 &&
        lseek(file, static_cast<off_t>(pending->second.start_offset), SEEK_SET) < 0) {
        spdlog::warn("cannot position the guest's {}: {}", pending->second.host_path, std::strerror(errno));
    }
}

void Virtualizer::finish_redirected_open(Task& task, int64_t result) {
    const auto pending = pending_opens_.find(task.host_tid());
    if (pending == pending_opens_.end()) {
        return;
    }
    if (pending->second.remove_after_open) {
        unlink(pending->second.host_path.c_str());
    }
    const bool opened_by_kernel = result >= 0 && !task.installed_file(static_cast<int>(result));
    if (pending->second.start_offset != 0 && opened_by_kernel) {
        seek_guest_descriptor(task.host_pid(), static_cast<int>(result), pending->second.start_offset);
    }
    pending_opens_.erase(pending);
}

} // namespace hermit::tracer
