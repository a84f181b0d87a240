#include "Session.h"

#include "AbsentPaths.h"
#include "BlockingModel.h"
#include "ExecutableResolver.h"
#include "GuestLauncher.h"
#include "GuestThread.h"
#include "ProcFs.h"
#include "SeccompFilter.h"
#include "SyscallBuffer.h"
#include "SyscallNotifications.h"
#include "SyscallTable.h"
#include "Task.h"
#include "TerminalForeground.h"
#include "TimerSource.h"
#include "WaitPredictor.h"
#include "formats/Error.h"
#include "virt/GuestDirectoryRead.h"
#include "virt/GuestOpen.h"
#include "virt/GuestPathLookup.h"
#include "virt/VirtualClock.h"

#include <asm/prctl.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/ptrace.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <deque>
#include <map>
#include <optional>
#include <set>
#include <utility>

namespace hermit::tracer {

namespace {

// With deterministic scheduling one guest thread runs at a time, so the guest needs one CPU; sharing the
// tracer's spares hermit and the guest a cross-CPU wakeup at each ptrace stop, where they wake each
// other. On the shared 2-vCPU VM a stop cost 3 to 4 times less pinned (bench/RESULTS.md). The tracing
// thread's own affinity is restored when the run ends; the guest inherits the pinning at its fork (it sees
// the virtual CPUs in sched_getaffinity, and may change its own).
class SharedCpu {
public:
    explicit SharedCpu(bool wanted) {
        const int cpu = sched_getcpu();
        if (!wanted || cpu < 0 || sched_getaffinity(0, sizeof saved_, &saved_) != 0) {
            return;
        }
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        pinned_ = sched_setaffinity(0, sizeof one, &one) == 0;
    }
    ~SharedCpu() {
        if (pinned_) {
            sched_setaffinity(0, sizeof saved_, &saved_);
        }
    }
    SharedCpu(const SharedCpu&) = delete;
    SharedCpu& operator=(const SharedCpu&) = delete;

private:
    cpu_set_t saved_{};
    bool pinned_ = false;
};

constexpr long kPtraceOptions = PTRACE_O_TRACESECCOMP | PTRACE_O_TRACECLONE | PTRACE_O_TRACEFORK |
                                PTRACE_O_TRACEVFORK | PTRACE_O_TRACEVFORKDONE | PTRACE_O_TRACEEXEC |
                                PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL | PTRACE_O_TRACESYSGOOD;

// `syscall` (0f 05) and `int $0x80` (cd 80) alike.
constexpr uint64_t kSyscallInstructionBytes = 2;
// Blocked detection: how long the token holder may go without a stop before /proc is consulted, and the
// ceiling of the exponential back-off (also the longest slice a blocked thread gets when all are blocked).
constexpr int64_t kFirstCheckNs = 1'000'000;
constexpr int64_t kMaxCheckNs = 10'000'000;
constexpr int64_t kSpinWarningNs = 2'000'000'000;
// While every thread waits, virtual time jumps from timer to timer until a wait ends; periodic timers that
// end none (an ignored signal, a timerfd nobody reads) stop it after this many jumps.
constexpr int kMaxTimerJumps = 10000;

// Syscalls the scheduler itself needs to see: futex waits, yields, waits for children, signals, sleeps and
// I/O multiplexing. clone/fork/exec/exit are not here: their ptrace events already stop the guest.
const std::set<int> kSchedulerSyscalls = {
    SYS_futex,          SYS_sched_yield,   SYS_wait4,        SYS_waitid,
    SYS_kill,           SYS_tgkill,        SYS_tkill,        SYS_rt_sigqueueinfo,
    SYS_pause,          SYS_rt_sigsuspend, SYS_nanosleep,    SYS_clock_nanosleep,
    SYS_poll,           SYS_ppoll,         SYS_select,       SYS_pselect6,
    SYS_epoll_wait,     SYS_epoll_pwait,   SYS_epoll_pwait2, SYS_rt_tgsigqueueinfo,
    SYS_rt_sigtimedwait};

// Syscalls that may change a thread's working directory, root, umask or user namespace, which each Task
// keeps once read (Task::follow_file_system_epoch): with deterministic scheduling they are trapped, and
// each moves the epoch on at its entry, and again once the interceptors have seen it. Those that no
// interceptor traps run in the kernel unwatched, and make no event.
const std::set<int> kFileSystemContextSyscalls = {SYS_chdir,   SYS_fchdir, SYS_chroot,    SYS_umask,
                                                  SYS_unshare, SYS_setns,  SYS_pivot_root};

bool is_futex_wait(const SyscallStop& stop) {
    int operation = static_cast<int>(stop.args[1]) & FUTEX_CMD_MASK;
    return operation == FUTEX_WAIT || operation == FUTEX_WAIT_BITSET || operation == FUTEX_LOCK_PI ||
           operation == FUTEX_LOCK_PI2 || operation == FUTEX_WAIT_REQUEUE_PI;
}

// Whether the thread gives up the token at this syscall's entry, before anything decides about the
// syscall: it is looked at (interceptors, wait prediction) only when the thread runs again, so that its
// event follows the schedule in every run and on replay. Sleeps are not here: the Virtualizer emulates
// them and asks for the scheduling point after them.
bool scheduler_yields_before(const SyscallStop& stop) {
    if (stop.number == SYS_futex) {
        return is_futex_wait(stop);
    }
    return stop.number != SYS_nanosleep && stop.number != SYS_clock_nanosleep &&
           kSchedulerSyscalls.count(stop.number) != 0;
}

// The register that holds the path argument of `number` (tracer::path_argument).
unsigned long long& path_register(user_regs_struct& registers, int number) {
    return path_argument(number) == 0 ? registers.rdi : registers.rsi;
}

// The kernel's internal "restart me" results, seen at a syscall-exit stop of an interrupted syscall.
bool is_restart_result(int64_t result) {
    return result <= -512 && result >= -516;
}

bool default_action_kills(int signal_number) {
    switch (signal_number) {
    case SIGCHLD:
    case SIGCONT:
    case SIGURG:
    case SIGWINCH:
    case SIGSTOP:
    case SIGTSTP:
    case SIGTTIN:
    case SIGTTOU:
        return false;
    default:
        return signal_number > 0 && signal_number < SIGRTMIN;
    }
}

int64_t monotonic_ns() {
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    return static_cast<int64_t>(now.tv_sec) * 1'000'000'000 + now.tv_nsec;
}

} // namespace

struct Session::State {
    SessionOptions options;
    std::vector<SyscallInterceptor*> interceptors;
    std::vector<EventSink*> sinks;
    std::unique_ptr<SchedulePolicy> policy;

    ThreadTable threads;
    BlockingModel blocking{threads, policy};
    std::map<pid_t, int> early_first_stops; // first stops of threads whose creation event is not in yet
    LaunchedGuest launched;
    // Whether waitpid may have a status to report: cleared when a WNOHANG waitpid finds none, set by the
    // next SIGCHLD (every stop and exit of a traced thread sends its tracer one). A wake for a
    // notification alone then costs no waitpid.
    bool statuses_pending = true;
    TerminalForeground* foreground = nullptr; // when the guest is the terminal's foreground job
    std::optional<int> initial_status;
    // The launcher exec'd the guest's program: its own syscalls before (stand-in descriptors, stdin) are
    // hermit's, not the guest's, and the notifying filter is already installed then.
    bool program_started = false;
    bool killing = false;
    bool namespace_ended = false;  // the guest's pid namespace init exited: the rest is being killed
    int termination_signal = 0;    // received, not yet acted on
    pid_t termination_sender = 0;  // who sent it
    int forwarded_termination = 0; // passed on to the guest (an interactive run's first)
    pid_t forwarded_sender = 0;
    int forced_termination = 0; // made hermit kill the guest
    bool faults_enabled = false;
    bool trap_cpuid = false; // CPUID faulting is armed at every exec
    DebugHook* debug_hook = nullptr;
    int debugger_stop_requests = -1; // an eventfd the debugger writes to stop the guest, or -1
    virt::VirtualClock* virtual_clock = nullptr;
    TimerSource* timer_source = nullptr;

    uint64_t logical_time_ns = 0;
    std::function<uint64_t()> time_source;
    uint64_t event_count = 0;
    // Every wait status handled: the tracer's main cost (a stop is a round trip through the kernel and
    // two context switches), reported at the end so benchmarks can compare runs independently of load.
    uint64_t stop_count = 0;
    // Syscalls answered from a seccomp notification, without a ptrace stop.
    uint64_t notification_count = 0;
    // Moves on at each syscall that may change a thread's file-system context (kFileSystemContextSyscalls).
    uint64_t file_system_epoch = 0;
    // The kFileSystemContextSyscalls trapped only for the epoch, by no interceptor.
    std::set<int> epoch_only_syscalls;
    SyscallNotifications notifications;
    UniqueFd signals; // signalfd of wait_signals
    pid_t holder = 0; // host tid of the thread holding the run token, 0 when nobody runs
    int64_t check_interval_ns = kFirstCheckNs;
    int all_blocked_rounds = 0;

    sigset_t wait_signals{};
    sigset_t saved_mask{};

    // ---- events ----
    void emit(const Thread& thread, EventPayload payload) {
        logical_time_ns += kEventTimeStepNs;
        ++event_count;
        Event event{time_source ? time_source() : logical_time_ns, thread.task->tid(), thread.task->pid(),
                    std::move(payload)};
        for (EventSink* sink : sinks) {
            sink->on_event(event);
        }
    }

    // At each new stop of the thread, before anything else: the calls it made in its syscall buffer since it
    // last stopped (SyscallBuffer.h), each an event. Never while it runs, when it may be writing the buffer.
    void take_buffered_calls(Thread& thread) {
        if (thread.task->syscall_buffer() == 0) {
            return;
        }
        for (SyscallEvent& call : syscall_buffer::take(*thread.task)) {
            for (SyscallInterceptor* interceptor : interceptors) {
                interceptor->on_buffered_syscall(*thread.task, call);
            }
            emit(thread, std::move(call));
        }
    }

    Thread* find(pid_t host_tid) {
        auto found = threads.find(host_tid);
        return found == threads.end() ? nullptr : &found->second;
    }

    std::unique_ptr<Task> make_task(pid_t host_tid, pid_t host_pid, int32_t tid, int32_t pid) {
        auto task = std::make_unique<Task>(host_tid, host_pid, tid, pid, launched.has_hermit_credentials);
        if (options.deterministic_scheduling) {
            task->follow_file_system_epoch(&file_system_epoch);
        }
        return task;
    }

    Thread& add_thread(pid_t host_tid, ThreadState state) {
        procfs::GuestIds ids = procfs::guest_ids(host_tid);
        if (!options.namespaces || !launched.in_namespaces) {
            ids.tid = host_tid;
            ids.pid = ids.host_pid;
        }
        Thread& thread = threads[host_tid];
        thread.task = make_task(host_tid, ids.host_pid == 0 ? host_tid : ids.host_pid, ids.tid, ids.pid);
        thread.state = state;
        policy->on_thread_start(ids.tid);
        return thread;
    }

    // ---- resuming ----
    // The same whether the thread leaves a ptrace stop or a notification: the guest sees what it would
    // have seen after the stop (the vDSO clock page's values).
    // The holder's switches so far (the one that stopped it, or that it made waiting for a notification's
    // answer) are no news for the alarm: only those after it goes on are.
    void before_guest_runs(Thread& thread) {
        for (SyscallInterceptor* interceptor : interceptors) {
            interceptor->on_resume(*thread.task);
        }
        if (holder == thread.task->host_tid()) {
            blocking.watch_holder(thread);
        }
    }

    void resume(Thread& thread) {
        int request = thread.resume_request;
        if (debug_hook != nullptr && request == PTRACE_CONT && debug_hook->before_resume(*thread.task)) {
            request = PTRACE_SINGLESTEP;
        }
        before_guest_runs(thread);
        thread.task->flush_registers();
        blocking.guest_runs();
        int signal_number = thread.resume_signal;
        thread.resume_signal = 0;
        thread.resumed_at_ns = monotonic_ns();
        if (thread.state != ThreadState::Exiting && thread.state != ThreadState::VforkWaiting) {
            thread.state = ThreadState::Running;
        }
        if (ptrace(static_cast<__ptrace_request>(request), thread.task->host_tid(), nullptr, signal_number) !=
                0 &&
            errno != ESRCH) {
            throw Error(ErrorCode::TracerInternal, "cannot resume thread " +
                                                       std::to_string(thread.task->host_tid()) + ": " +
                                                       std::strerror(errno));
        }
    }

    bool deterministic() const { return options.deterministic_scheduling && !killing; }

    // The thread stopped for a reason that is not a scheduling point: it keeps the token.
    void keep_running(Thread& thread) {
        if (!deterministic() || holder == thread.task->host_tid() || thread.state == ThreadState::Exiting ||
            thread.state == ThreadState::VforkWaiting) {
            resume(thread);
        } else {
            thread.state = ThreadState::Ready;
        }
    }

    // The thread reached a scheduling point and is ready to continue when it gets the token again.
    void yield(Thread& thread, ScheduleEvent::Reason reason, ThreadState new_state = ThreadState::Ready) {
        thread.state = new_state;
        if (!deterministic()) {
            if (new_state == ThreadState::Ready || new_state == ThreadState::Waiting) {
                resume(thread);
            }
            return;
        }
        if (holder == thread.task->host_tid()) {
            schedule(thread.task->tid(), reason);
        }
    }

    // Hands the token to the next thread. `previous_tid` is the guest tid giving it up (0 if none).
    void schedule(int32_t previous_tid, ScheduleEvent::Reason reason) {
        holder = 0;
        bool only_waiting = false;
        if (timer_source != nullptr && timer_source->fire_due_timers()) {
            blocking.time_moved();
        }
        std::vector<Thread*> runnable = blocking.candidates(only_waiting);
        for (int jumps = 0; only_waiting && jumps < kMaxTimerJumps && blocking.jump_to_next_deadline();
             ++jumps) {
            // Nothing can happen before the next deadline: a wait times out, or a timer's signal ends one.
            blocking.time_moved();
            runnable = blocking.candidates(only_waiting);
        }
        if (runnable.empty()) {
            return; // the event loop waits for a thread to become ready
        }
        Thread* next = runnable.front();
        bool chosen_by_policy = runnable.size() > 1;
        if (chosen_by_policy) {
            std::vector<int32_t> tids;
            for (Thread* thread : runnable) {
                tids.push_back(thread->task->tid());
            }
            SchedulingPoint point{previous_tid, false, reason, event_count};
            for (Thread* thread : runnable) {
                point.current_runnable |= thread->task->tid() == previous_tid;
            }
            int32_t chosen = policy->choose(point, tids);
            next = *std::find_if(runnable.begin(), runnable.end(),
                                 [chosen](Thread* thread) { return thread->task->tid() == chosen; });
        }
        next->wait_in_kernel = only_waiting;
        if (only_waiting) {
            spdlog::debug("every guest thread waits; thread {} waits in the kernel", next->task->tid());
            for (EventSink* sink : sinks) {
                sink->on_guest_waits();
            }
        }
        bool all_blocked = std::all_of(runnable.begin(), runnable.end(),
                                       [](Thread* thread) { return thread->state == ThreadState::Blocked; });
        all_blocked_rounds = all_blocked ? all_blocked_rounds + 1 : 0;
        check_interval_ns = std::min(kFirstCheckNs << std::min(all_blocked_rounds, 4), kMaxCheckNs);
        if (chosen_by_policy || next->task->tid() != previous_tid) {
            emit(*next, ScheduleEvent{previous_tid, reason});
        }
        holder = next->task->host_tid();
        if (!next->entry_deferred) {
            if (next->state == ThreadState::Blocked) {
                send_held_signal(*next);
            }
            resume(*next);
        }
    }

    // A thread blocked in the kernel when it got the token back: an outside signal held for it (it came
    // between syscalls, and the thread then blocked in one nothing traps) interrupts that syscall now.
    void send_held_signal(Thread& thread) {
        if (thread.outside_signals.empty() || thread.sent_signal) {
            return;
        }
        thread.sent_signal = thread.outside_signals.front();
        thread.outside_signals.pop_front();
        syscall(SYS_tgkill, thread.task->host_pid(), thread.task->host_tid(), thread.sent_signal->number);
    }

    // ---- stop handlers ----
    void on_seccomp_stop(Thread& thread) {
        Task& task = *thread.task;
        SyscallStop stop = syscall_of(task.registers());
        const std::optional<NotifiedEntry> notified = std::exchange(thread.notified, std::nullopt);
        const bool after_notification = notified && stop.args[5] == SeccompFilter::kRetraceMarker;
        if (after_notification) {
            // The notified syscall again, now at a ptrace stop. The marker stays in r9 until the kernel's
            // second look at a traced syscall (its seccomp recheck) is past.
            thread.guest_r9 = notified->r9;
        }
        if (thread.guest_r9) {
            stop.args[5] = *thread.guest_r9; // here, or parked at this entry since
        }
        if (after_notification && notified->entry) {
            finish_entry(thread, stop, *notified->entry);
            return;
        }
        if (emulate_signal_to_namespace_init(thread, stop)) {
            return;
        }
        if (std::exchange(thread.entry_deferred, false)) {
            // Back from the scheduling point at this entry: now the syscall is handled.
        } else if (deterministic() && scheduler_yields_before(stop)) {
            thread.entry_deferred = true;
            yield(thread, ScheduleEvent::Reason::Yield);
            return;
        }
        if (!thread.outside_signals.empty() && !thread.sent_signal) {
            const SignalEvent signal = thread.outside_signals.front();
            thread.outside_signals.pop_front();
            send_outside_signal(thread, stop, signal);
            return;
        }
        finish_entry(thread, stop, ask_interceptors(thread, stop));
    }

    EntryDecision ask_interceptors(Thread& thread, const SyscallStop& stop) {
        if (kFileSystemContextSyscalls.contains(stop.number)) {
            ++file_system_epoch;
        }
        EntryDecision entry;
        thread.exit_interceptors.clear();
        if (epoch_only_syscalls.contains(stop.number)) {
            return entry; // no interceptor asked for it
        }
        for (SyscallInterceptor* interceptor : interceptors) {
            SyscallDecision answer = interceptor->on_entry(*thread.task, stop);
            entry.yield_requested |= answer.yield;
            if (answer.kind == SyscallDecision::Kind::Pass) {
                continue;
            }
            if (answer.kind == SyscallDecision::Kind::StopAtExit ||
                answer.kind == SyscallDecision::Kind::ReplacePath) {
                thread.exit_interceptors.push_back(interceptor);
                if (answer.kind == SyscallDecision::Kind::ReplacePath && !entry.path_instead) {
                    entry.path_instead = std::move(answer.path);
                }
                continue;
            }
            entry.decision = answer;
            entry.decided = true;
            break;
        }
        if (kFileSystemContextSyscalls.contains(stop.number)) {
            ++file_system_epoch; // what the interceptors read of the context was the one before the syscall
        }
        return entry;
    }

    // Carries out what the interceptors decided, the thread being at the syscall's seccomp stop.
    void finish_entry(Thread& thread, const SyscallStop& stop, const EntryDecision& entry) {
        Task& task = *thread.task;
        SyscallDecision decision = entry.decision;
        if (decision.kind == SyscallDecision::Kind::DeliverSignal) {
            send_outside_signal(thread, stop, decision.signal);
            return;
        }
        thread.syscall = stop;
        thread.resume_request = PTRACE_CONT;
        const bool wait_in_kernel = std::exchange(thread.wait_in_kernel, false);
        const bool retried = decision.kind == SyscallDecision::Kind::Retry;
        const bool waits_now = retried || (!entry.decided && deterministic() && !wait_in_kernel &&
                                           blocking.would_wait(task, stop));
        const std::optional<uint64_t> deadline = task.wait_deadline();
        task.set_wait_deadline(std::nullopt);
        if (waits_now && deadline && !retried) {
            // Back with the token and its wait not over: its time is up (the schedule's jump to the
            // deadline let it run, or, replaying, the recorded schedule did, and the clock goes there now).
            virtual_clock->sleep_until(*deadline);
            decision = SyscallDecision::emulate(WaitPredictor::time_out(task, stop));
        } else if (waits_now) {
            if (deadline) {
                task.set_wait_deadline(deadline);
            } else if (const std::optional<int64_t> timeout =
                           virtual_clock != nullptr ? WaitPredictor::timeout_ns(task, stop, *virtual_clock)
                                                    : std::nullopt) {
                task.set_wait_deadline(virtual_clock->elapsed_ns() + static_cast<uint64_t>(*timeout));
            }
            park(thread, stop);
            return;
        }
        if (decision.kind == SyscallDecision::Kind::Emulate) {
            complete_emulated(thread, stop, decision);
        } else if (decision.kind == SyscallDecision::Kind::Untraced) {
            thread.exit_interceptors.clear();
            if (thread.guest_r9) {
                thread.resume_request = PTRACE_SYSCALL; // only to put the guest's r9 back at the exit
            }
        } else {
            if (entry.path_instead) {
                replace_path_argument(thread, stop, *entry.path_instead);
            }
            const bool event_due = !sinks.empty() && !epoch_only_syscalls.contains(stop.number);
            if (!thread.exit_interceptors.empty() || event_due || thread.guest_r9 || sends_sigkill(stop)) {
                thread.awaiting_syscall_exit = true;
                thread.resume_request = PTRACE_SYSCALL;
            }
        }
        if (entry.yield_requested) {
            yield(thread, ScheduleEvent::Reason::Yield);
        } else {
            keep_running(thread);
        }
    }

    // A notified syscall (tracer/SyscallNotifications.h): answered here when the interceptors emulate it
    // and nothing else is due at its entry; otherwise brought to a ptrace stop, where finish_entry() or
    // on_seccomp_stop() takes it over.
    void on_notification() {
        const std::optional<SyscallNotifications::Notification> notification = notifications.receive();
        if (!notification) {
            return;
        }
        blocking.guest_runs(); // as at a stop (handle_status)
        Thread* thread = find(notification->host_tid);
        if (thread == nullptr || killing || !program_started) {
            notifications.run_in_kernel(notification->id);
            return;
        }
        thread->task->forget_stop(); // the thread ran since its last stop
        blocking.guest_moved();
        take_buffered_calls(*thread);
        const SyscallStop& stop = notification->stop;
        std::optional<EntryDecision> entry;
        const bool all_answer =
            std::all_of(interceptors.begin(), interceptors.end(), [&](SyscallInterceptor* interceptor) {
                return interceptor->answers_without_stop(*thread->task, stop);
            });
        // A released thread (ThreadState::Released) waits for the token at a ptrace stop.
        const bool holds_token = !deterministic() || holder == thread->task->host_tid();
        if (all_answer && holds_token && thread->outside_signals.empty() && !thread->sent_signal) {
            entry = ask_interceptors(*thread, stop);
            if (entry->decision.kind == SyscallDecision::Kind::Emulate && !entry->yield_requested) {
                ++notification_count;
                thread->syscall = stop;
                const int64_t result = emulated_result(*thread, stop, entry->decision);
                before_guest_runs(*thread);
                if (notifications.answer(notification->id, result)) {
                    emit_emulated(*thread, stop, entry->decision, result);
                }
                return;
            }
            if (runs_unwatched(*thread, stop, *entry)) {
                ++notification_count;
                before_guest_runs(*thread);
                notifications.run_in_kernel(notification->id);
                return;
            }
            if (runs_for_guest(*thread, *notification, *entry)) {
                return;
            }
        }
        thread->notified = NotifiedEntry{stop.args[5], false, entry};
        // The interrupt first: its pending stop is what turns the restart error into a restart.
        ptrace(PTRACE_INTERRUPT, thread->task->host_tid(), nullptr, nullptr);
        notifications.restart_at_ptrace_stop(notification->id);
    }

    // No interceptor acts on the syscall and nobody needs its exit (no event sink either), and it does not
    // wait: the kernel runs it as it would an untrapped one, as finish_entry() would let it run.
    bool runs_unwatched(Thread& thread, const SyscallStop& stop, const EntryDecision& entry) {
        if (entry.decided && entry.decision.kind == SyscallDecision::Kind::Untraced) {
            return !entry.yield_requested;
        }
        if (epoch_only_syscalls.contains(stop.number)) {
            return entry.kernel_runs_it() && !entry.yield_requested && thread.exit_interceptors.empty();
        }
        return entry.kernel_runs_it() && !entry.yield_requested && thread.exit_interceptors.empty() &&
               sinks.empty() &&
               (entry.decided || !deterministic() || !blocking.would_wait(*thread.task, stop));
    }

    // A notified syscall the kernel would run with its exit watched (a recording or a replay needs its
    // result, the Virtualizer rewrites it), and that hermit can do for the guest: an open as the guest
    // (virt/GuestOpen.h) or a read of its open directory (virt/GuestDirectoryRead.h). hermit does it and
    // answers, which the kernel's call and an exit stop would have done.
    bool runs_for_guest(Thread& thread, const SyscallNotifications::Notification& notification,
                        const EntryDecision& entry) {
        const SyscallStop& stop = notification.stop;
        if (!entry.kernel_runs_it() || entry.yield_requested) {
            return false;
        }
        if (virt::GuestDirectoryRead::reads(stop.number) && !entry.path_instead) {
            const std::optional<int64_t> read = virt::GuestDirectoryRead::read(*thread.task, stop);
            if (read) {
                answer_for_guest(thread, notification, *read);
            }
            return read.has_value();
        }
        if (!virt::GuestOpen::opens(stop.number)) {
            return false;
        }
        const std::optional<virt::GuestOpen::Opened> opened =
            entry.path_instead ? virt::GuestOpen::open_instead(*thread.task, *entry.path_instead, stop)
                               : virt::GuestOpen::open(*thread.task, stop);
        if (!opened) {
            return false;
        }
        if (opened->error != 0) {
            answer_for_guest(thread, notification, -opened->error);
            return true;
        }
        for (auto it = thread.exit_interceptors.rbegin(); it != thread.exit_interceptors.rend(); ++it) {
            (*it)->on_opened_for_guest(*thread.task, stop, opened->file.get(), opened->info);
        }
        before_guest_runs(thread);
        // The install answers the notification too: the thread runs on while the exit is seen here, which
        // saves the thread a wake-up and a sleep per open.
        const int64_t installed =
            notifications.install_and_answer(notification.id, opened->file.get(), opened->close_on_exec);
        if (installed < 0) {
            answer_for_guest(thread, notification, installed); // EMFILE: still unanswered
            return true;
        }
        thread.task->note_installed(static_cast<int>(installed), opened->info);
        int64_t result = installed; // the guest has it: no interceptor can change it any more
        exit_for_guest(thread, stop, result);
        emit_for_guest(thread, stop, installed);
        return true;
    }

    // The exit of a call hermit made for the guest, which the guest then sees: `result` as the interceptors
    // leave it.
    void answer_for_guest(Thread& thread, const SyscallNotifications::Notification& notification,
                          int64_t result) {
        const SyscallStop& stop = notification.stop;
        exit_for_guest(thread, stop, result);
        before_guest_runs(thread);
        if (notifications.answer(notification.id, result)) {
            emit_for_guest(thread, stop, result);
        }
    }

    void exit_for_guest(Thread& thread, const SyscallStop& stop, int64_t& result) {
        ++notification_count;
        thread.syscall = stop;
        for (auto it = thread.exit_interceptors.rbegin(); it != thread.exit_interceptors.rend(); ++it) {
            (*it)->on_exit(*thread.task, stop, result);
        }
    }

    void emit_for_guest(const Thread& thread, const SyscallStop& stop, int64_t result) {
        emit(thread,
             SyscallEvent{stop.number, {stop.args.begin(), stop.args.end()}, result, false, {}, false, {}});
    }

    // Points the path argument of the syscall the thread is stopped at to `path` until its exit stop.
    void replace_path_argument(Thread& thread, const SyscallStop& stop, const std::string& path) {
        Task& task = *thread.task;
        const uint64_t address = task.scratch_below_stack(path.size() + 1);
        if (!task.write(address, path.c_str(), path.size() + 1)) {
            spdlog::warn("cannot point thread {}'s {} to {}", task.tid(), stop.number, path);
            return;
        }
        user_regs_struct registers = task.registers();
        unsigned long long& argument = path_register(registers, stop.number);
        thread.guest_path_argument = argument;
        argument = address;
        task.set_registers(registers);
    }

    // The guest's path argument back, unless an exec succeeded (the registers are the new program's).
    void restore_guest_path_argument(Thread& thread) {
        const std::optional<uint64_t> original = std::exchange(thread.guest_path_argument, std::nullopt);
        if (!original) {
            return;
        }
        user_regs_struct registers = thread.task->registers();
        const bool executed =
            (thread.syscall.number == SYS_execve || thread.syscall.number == SYS_execveat) &&
            registers.rax == 0;
        if (!executed) {
            path_register(registers, thread.syscall.number) = *original;
            thread.task->set_registers(registers);
        }
    }

    // The interrupt stop of a notified syscall that needs a ptrace stop: the marker makes its restart stop.
    bool mark_notified_restart(Thread& thread) {
        if (!thread.notified || thread.notified->marked) {
            return false;
        }
        thread.notified->marked = true;
        user_regs_struct marked = thread.task->registers();
        marked.r9 = SeccompFilter::kRetraceMarker;
        thread.task->set_registers(marked);
        resume(thread);
        return true;
    }

    // Sends `signal` to the thread stopped at the entry of `stop`. The syscall is skipped and the thread's
    // instruction pointer put back on it, so the signal is delivered before it and the syscall comes again
    // after the handler; pause and rt_sigsuspend run instead, and return once the handler ran. The delivery
    // stop restores the guest-visible siginfo (on_signal_stop).
    void send_outside_signal(Thread& thread, const SyscallStop& stop, const SignalEvent& signal) {
        Task& task = *thread.task;
        restore_guest_r9(thread);
        if (stop.number != SYS_pause && stop.number != SYS_rt_sigsuspend) {
            user_regs_struct again = task.registers();
            again.orig_rax = static_cast<uint64_t>(-1);
            again.rax = static_cast<uint64_t>(stop.number);
            again.rip -= kSyscallInstructionBytes;
            task.set_registers(again);
        }
        thread.sent_signal = signal;
        syscall(SYS_tgkill, task.host_pid(), task.host_tid(), signal.number);
        thread.resume_request = PTRACE_CONT;
        keep_running(thread);
    }

    // A signal sent by kill/tgkill/sigqueue from a process outside the guest. Hermit's virtual alarm
    // timers send SIGALRM themselves, so SIGALRM never counts as one.
    bool sent_from_outside(const siginfo_t& info) const {
        if (info.si_code == SI_KERNEL) {
            // The terminal's signals (Ctrl-C, Ctrl-\, Ctrl-Z, a hangup, a resize) come from the kernel;
            // its other signals (faults, SIGPIPE, SIGCHLD) follow from what the guest did.
            return info.si_signo == SIGINT || info.si_signo == SIGQUIT || info.si_signo == SIGTSTP ||
                   info.si_signo == SIGHUP || info.si_signo == SIGWINCH;
        }
        if ((info.si_code != SI_USER && info.si_code != SI_QUEUE && info.si_code != SI_TKILL) ||
            info.si_signo == SIGALRM) {
            return false;
        }
        if (launched.in_namespaces) {
            return info.si_pid == 0; // the kernel shows senders outside the guest's pid namespace as 0
        }
        return std::none_of(threads.begin(), threads.end(),
                            [&](const auto& entry) { return entry.second.task->host_pid() == info.si_pid; });
    }

    // The signal stopped the thread inside a syscall that was waiting in the kernel (one hermit does not
    // trap, or one it let wait). Held back, the syscall would restart and might wait for good, so such a
    // signal is delivered at once, where it came.
    static bool interrupted_a_syscall(Task& task) {
        const user_regs_struct& registers = task.registers();
        const auto result = static_cast<int64_t>(registers.rax);
        return static_cast<int64_t>(registers.orig_rax) >= 0 &&
               (is_restart_result(result) || result == -EINTR);
    }

    // Skips the kernel: the guest sees `result` (exit interceptors may still change it).
    void complete_emulated(Thread& thread, const SyscallStop& stop, const SyscallDecision& decision) {
        Task& task = *thread.task;
        const int64_t result = emulated_result(thread, stop, decision);
        // orig_rax = -1 makes the kernel skip the syscall and leave rax, the guest's result, alone.
        user_regs_struct emulated = task.registers();
        emulated.orig_rax = static_cast<uint64_t>(-1);
        emulated.rax = static_cast<uint64_t>(result);
        emulated.r9 = thread.guest_r9.value_or(emulated.r9); // a skipped syscall is not checked again
        thread.guest_r9.reset();
        task.set_registers(emulated);
        emit_emulated(thread, stop, decision, result);
    }

    int64_t emulated_result(Thread& thread, const SyscallStop& stop, const SyscallDecision& decision) {
        int64_t result = decision.result;
        for (auto it = thread.exit_interceptors.rbegin(); it != thread.exit_interceptors.rend(); ++it) {
            (*it)->on_exit(*thread.task, stop, result);
        }
        return result;
    }

    void emit_emulated(Thread& thread, const SyscallStop& stop, const SyscallDecision& decision,
                       int64_t result) {
        emit(thread, SyscallEvent{stop.number,
                                  {stop.args.begin(), stop.args.end()},
                                  result,
                                  !decision.outside_input,
                                  {},
                                  false,
                                  {}});
    }

    // The syscall would wait: the thread gives up the token and stays stopped at the syscall's entry,
    // which is decided afresh when it gets the token back (then a signal that ended the wait interrupts
    // the syscall in the kernel, as it would have natively).
    void park(Thread& thread, const SyscallStop& stop) {
        thread.exit_interceptors.clear();
        emit(thread, SyscallEvent{stop.number,
                                  {stop.args.begin(), stop.args.end()},
                                  SyscallEvent::kRetried,
                                  true,
                                  {},
                                  false,
                                  {}});
        thread.entry_deferred = true;
        yield(thread, ScheduleEvent::Reason::Blocked, ThreadState::Waiting);
    }

    void restore_guest_r9(Thread& thread) {
        if (const std::optional<uint64_t> r9 = std::exchange(thread.guest_r9, std::nullopt)) {
            user_regs_struct restored = thread.task->registers();
            restored.r9 = *r9;
            thread.task->set_registers(restored);
        }
    }

    void on_syscall_exit_stop(Thread& thread) {
        restore_guest_r9(thread);
        restore_guest_path_argument(thread);
        thread.resume_request = PTRACE_CONT;
        if (!thread.awaiting_syscall_exit) {
            go_on_after_exec(thread);
            return;
        }
        thread.awaiting_syscall_exit = false;
        Task& task = *thread.task;
        int64_t result = static_cast<int64_t>(task.registers().rax);
        if (is_restart_result(result)) {
            // Interrupted: the kernel restarts it through the seccomp filter, which decides afresh. When the
            // interruption was ours (the holder was blocked in it), the token moves on first.
            if (thread.interrupt_requested && deterministic() && holder == task.host_tid()) {
                thread.interrupt_requested = false;
                yield(thread, ScheduleEvent::Reason::Blocked, ThreadState::Blocked);
                return;
            }
            keep_running(thread);
            return;
        }
        int64_t original = result;
        for (auto it = thread.exit_interceptors.rbegin(); it != thread.exit_interceptors.rend(); ++it) {
            (*it)->on_exit(task, thread.syscall, result);
        }
        if (result != original) {
            user_regs_struct changed = task.registers();
            changed.rax = static_cast<uint64_t>(result);
            task.set_registers(changed);
        }
        emit(thread, SyscallEvent{thread.syscall.number,
                                  {thread.syscall.args.begin(), thread.syscall.args.end()},
                                  result,
                                  false,
                                  {},
                                  false,
                                  {}});
        if (result == 0 && sends_sigkill(thread.syscall) && deterministic()) {
            settle_killed_threads(thread);
        }
        go_on_after_exec(thread);
    }

    static bool sends_sigkill(const SyscallStop& call) {
        switch (call.number) {
        case SYS_kill:
        case SYS_tkill:
        case SYS_rt_sigqueueinfo:
            return call.args[1] == SIGKILL;
        case SYS_tgkill:
        case SYS_rt_tgsigqueueinfo:
            return call.args[2] == SIGKILL;
        default:
            return false;
        }
    }

    // A guest's SIGKILL ends its targets while they are stopped at the tracer, in the kernel's time: their
    // exits are waited for here, so they come right after the kill in every run (a parent that kills its
    // sleeping child, then waits for it). Other signals wait for their target to run, which the schedule
    // decides. Leaders last: the kernel reports one only once its other threads are reaped.
    void settle_killed_threads(const Thread& sender) {
        std::vector<pid_t> dying;
        for (auto& [host_tid, other] : threads) {
            if (&other != &sender && procfs::dying(host_tid)) {
                dying.push_back(host_tid);
            }
        }
        std::stable_partition(dying.begin(), dying.end(), [this](pid_t host_tid) {
            return find(host_tid)->task->host_pid() != host_tid;
        });
        for (const pid_t host_tid : dying) {
            while (find(host_tid) != nullptr) {
                const std::optional<int> status = wait_for_thread(host_tid);
                if (!status) {
                    break;
                }
                handle_status(host_tid, *status);
            }
        }
    }

    // keep_running, but for a vfork child that just exec'd: it gives up the token (on_exec_event).
    void go_on_after_exec(Thread& thread) {
        if (std::exchange(thread.refused_program, false)) {
            // Its system calls would all fail under hermit's filter: refused at once, saying so.
            std::fprintf(stderr, "%s (guest process %d is killed)\n",
                         Error(ErrorCode::GuestNotRunnable, procfs::executable_path(thread.task->host_tid()),
                               "32-bit programs are not supported")
                             .what(),
                         thread.task->pid());
            kill(thread.task->host_tid(), SIGKILL);
            keep_running(thread);
            return;
        }
        if (std::exchange(thread.yield_after_exec, false)) {
            yield(thread, ScheduleEvent::Reason::Yield);
        } else {
            keep_running(thread);
        }
    }

    void on_new_task(Thread& parent, int event) {
        unsigned long message = 0;
        ptrace(PTRACE_GETEVENTMSG, parent.task->host_tid(), nullptr, &message);
        pid_t child_tid = static_cast<pid_t>(message);
        auto early = early_first_stops.find(child_tid);
        bool already_stopped = early != early_first_stops.end();
        if (already_stopped) {
            early_first_stops.erase(early);
        }
        Thread& child = add_thread(child_tid, already_stopped ? ThreadState::Ready : ThreadState::Starting);
        bool new_process = child.task->host_pid() != parent.task->host_pid();
        emit(child, ThreadStartEvent{parent.task->tid(), new_process});
        if (!already_stopped && deterministic()) {
            // The next scheduling decision must not depend on whether the new thread's first stop has
            // arrived yet, so wait for it here.
            if (const std::optional<int> status = wait_for_thread(child_tid)) {
                if (WIFSTOPPED(*status)) {
                    child.state = ThreadState::Ready;
                } else {
                    on_gone(child_tid, *status);
                }
            }
        }
        parent.resume_request = PTRACE_CONT;
        if (already_stopped && !deterministic()) {
            resume(child);
        }
        if (event == PTRACE_EVENT_VFORK) {
            // The parent sleeps in the kernel until the child execs or exits; it must not hold the token.
            child.vfork_parent = parent.task->host_tid();
            parent.state = ThreadState::VforkWaiting;
            resume(parent);
            if (deterministic() && holder == parent.task->host_tid()) {
                schedule(parent.task->tid(), ScheduleEvent::Reason::Blocked);
            }
            return;
        }
        yield(parent, ScheduleEvent::Reason::Yield);
    }

    void on_first_stop(pid_t host_tid, int status) {
        Thread* thread = find(host_tid);
        if (thread == nullptr) {
            early_first_stops[host_tid] = status;
            return;
        }
        thread->state = ThreadState::Ready;
        if (!deterministic()) {
            resume(*thread);
        }
    }

    void on_exec(Thread& thread) {
        unsigned long message = 0;
        ptrace(PTRACE_GETEVENTMSG, thread.task->host_tid(), nullptr, &message);
        pid_t former_tid = static_cast<pid_t>(message);
        pid_t leader = thread.task->host_tid();
        if (former_tid != leader) {
            // A non-leader thread exec'd and took over the leader's tid; its old tid is gone for good.
            if (Thread* former = find(former_tid)) {
                thread.awaiting_syscall_exit = former->awaiting_syscall_exit;
                thread.syscall = former->syscall;
                thread.exit_interceptors = former->exit_interceptors;
                thread.resume_request = former->resume_request;
                threads.erase(former_tid);
            }
            if (holder == former_tid) {
                holder = leader;
            }
        }
        thread.task = make_task(leader, leader, thread.task->tid(), thread.task->pid());
        thread.state = ThreadState::Running;
        thread.exit_reported = false;
        // When another thread exec'd, this entry was the old leader's: its exit, and the syscall entry it
        // was parked at, are gone with it.
        thread.held_exit_status.reset();
        thread.entry_deferred = false;
        thread.notified.reset();
        thread.guest_r9.reset();
        thread.guest_path_argument.reset();
        program_started = true;
        thread.refused_program = is_32_bit_program("/proc/" + std::to_string(leader) + "/exe");
        const bool cpuid_armed = !thread.refused_program && arm_cpuid_faulting(thread);
        for (SyscallInterceptor* interceptor : interceptors) {
            interceptor->on_exec(*thread.task);
        }
        emit(thread, ExecEvent{procfs::executable_path(leader), procfs::command_line(leader), {}});
        if (thread.vfork_parent != 0 && deterministic()) {
            await_vfork_done(std::exchange(thread.vfork_parent, 0));
            // The parent runs again: a scheduling point, as natively the two now run side by side. A
            // shell's parent goes on to wait for the child, which it could not while a busy child held the
            // token.
            thread.yield_after_exec = true;
        }
        if (cpuid_armed) {
            on_syscall_exit_stop(thread); // the arming left the thread at its execve's exit stop
        } else if (thread.awaiting_syscall_exit) {
            keep_running(thread); // to the execve's exit stop, which is the exec's last
        } else {
            go_on_after_exec(thread);
        }
    }

    // The kernel turns CPUID faulting off at every exec: it is armed again in the new program before its
    // first instruction (the dynamic loader asks CPUID early). False when it is not wanted.
    bool arm_cpuid_faulting(Thread& thread) {
        if (!trap_cpuid) {
            return false;
        }
        const int64_t result =
            thread.task->inject_syscall_after_exec(SYS_arch_prctl, {ARCH_SET_CPUID, 0, 0, 0, 0, 0});
        if (result != 0) {
            throw Error(ErrorCode::CpuidFaultingUnavailable,
                        "arch_prctl(ARCH_SET_CPUID) after the exec of thread " +
                            std::to_string(thread.task->tid()) +
                            " failed: " + std::strerror(static_cast<int>(-result)));
        }
        return true;
    }

    // The kernel wakes a vfork parent once its child has exec'd or exited, and the parent reports
    // PTRACE_EVENT_VFORK_DONE when it next gets a CPU: host timing. Waiting for that stop here makes the
    // parent a candidate for the token at the same point of every run.
    void await_vfork_done(pid_t parent_tid) {
        for (Thread* parent = find(parent_tid);
             parent != nullptr && parent->state == ThreadState::VforkWaiting; parent = find(parent_tid)) {
            const std::optional<int> status = wait_for_thread(parent_tid);
            if (!status) {
                return;
            }
            handle_status(parent_tid, *status);
        }
    }

    bool is_last_thread_of_process(const Thread& thread) {
        for (auto& [host_tid, other] : threads) {
            if (&other != &thread && other.task->host_pid() == thread.task->host_pid() &&
                !other.exit_reported) {
                return false;
            }
        }
        return true;
    }

    void report_exit(Thread& thread, int shell_status_value) {
        if (thread.exit_reported) {
            return;
        }
        thread.exit_reported = true;
        emit(thread, ThreadExitEvent{shell_status_value, is_last_thread_of_process(thread)});
        policy->on_thread_exit(thread.task->tid());
    }

    void on_exit_event(Thread& thread) {
        unsigned long message = 0;
        ptrace(PTRACE_GETEVENTMSG, thread.task->host_tid(), nullptr, &message);
        const bool was_holder = holder == thread.task->host_tid();
        const Thread* holding = find(holder);
        if (!was_holder && deterministic() && holding != nullptr &&
            holding->task->host_pid() == thread.task->host_pid()) {
            // A thread without the token exits because the holder is ending their process; whether its exit
            // stop comes before the holder's is host timing. It waits at this stop until settle_exit lets
            // it go, so the exits are reported holder first, then in settle_exit's order, in every run.
            thread.state = ThreadState::Exiting;
            thread.held_exit_status = shell_status(static_cast<int>(message));
            return;
        }
        // exit(2) ends one thread; exit_group(2) and fatal signals end the whole process.
        const bool whole_process = thread.task->registers().orig_rax != SYS_exit;
        if (debug_hook != nullptr && (whole_process || is_last_thread_of_process(thread))) {
            debug_hook->on_process_exit(*thread.task, stopped_threads(thread));
        }
        report_exit(thread, shell_status(static_cast<int>(message)));
        const pid_t host_tid = thread.task->host_tid();
        const pid_t host_pid = thread.task->host_pid();
        const int32_t tid = thread.task->tid();
        thread.state = ThreadState::Exiting;
        thread.resume_request = PTRACE_CONT;
        resume(thread);
        if (launched.in_namespaces && thread.task->pid() == 1 &&
            (whole_process || is_last_thread_of_process(thread)) && others_outlive(host_pid)) {
            // The kernel kills the rest of the namespace with its init (a `sleep &` a shell left behind), and
            // finishes the init's exit only once they are gone: the threads hermit holds must go on to die.
            // Their deaths, in host order, are the init's exit's: no events.
            namespace_ended = true;
            kill_everything();
            return;
        }
        if (!was_holder || !deterministic()) {
            return;
        }
        // The kernel finishes an exit after this stop: it clears the thread's tid and wakes pthread_join,
        // and when the tracer reaps the last thread it tells the parent process (SIGCHLD, wait4). Wait for
        // all of that, so the next thread finds the exit complete in every run.
        const pid_t vfork_parent = thread.vfork_parent;
        holder = 0;
        settle_exit(host_tid, host_pid, whole_process);
        if (vfork_parent != 0) {
            await_vfork_done(vfork_parent);
        }
        schedule(tid, ScheduleEvent::Reason::Exited);
    }

    // Reaps `host_tid` and, when the process is ending, its other threads and then its leader (which the
    // kernel reports only after all of its threads are released).
    void settle_exit(pid_t host_tid, pid_t host_pid, bool whole_process) {
        std::vector<pid_t> ending;
        for (auto& [other_tid, other] : threads) {
            if (other.task->host_pid() == host_pid && other_tid != host_pid &&
                (whole_process || other_tid == host_tid)) {
                ending.push_back(other_tid);
            }
        }
        for (pid_t ending_tid : ending) {
            await_gone(ending_tid);
        }
        Thread* leader = find(host_pid);
        bool leader_alone = std::none_of(threads.begin(), threads.end(), [&](const auto& entry) {
            return entry.first != host_pid && entry.second.task->host_pid() == host_pid;
        });
        if (leader != nullptr && leader_alone && (whole_process || leader->state == ThreadState::Exiting)) {
            await_gone(host_pid);
        }
    }

    // Waits for one dying thread to be gone: its exit is reported at its exit stop, then it may finish.
    void await_gone(pid_t host_tid) {
        await_exit_stop(host_tid);
        release_exit(host_tid);
        for (;;) {
            const std::optional<int> status = wait_for_thread(host_tid);
            if (!status || WIFEXITED(*status) || WIFSIGNALED(*status)) {
                on_gone(host_tid, status.value_or(0));
                return;
            }
            ptrace(PTRACE_CONT, host_tid, nullptr, 0);
        }
    }

    // Reports the exit of a thread held at its exit stop and lets it finish.
    void release_exit(pid_t host_tid) {
        if (Thread* held = find(host_tid); held != nullptr && held->held_exit_status) {
            report_exit(*held, *std::exchange(held->held_exit_status, std::nullopt));
            ptrace(PTRACE_CONT, host_tid, nullptr, 0);
        }
    }

    void on_gone(pid_t host_tid, int status) {
        if (host_tid == launched.guest && !initial_status) {
            initial_status = shell_status(status);
        }
        Thread* thread = find(host_tid);
        if (thread == nullptr) {
            return;
        }
        if (!namespace_ended) {
            report_exit(*thread, thread->held_exit_status.value_or(shell_status(status)));
        }
        int32_t tid = thread->task->tid();
        blocking.forget(host_tid, host_tid == thread->task->host_pid());
        threads.erase(host_tid);
        if (holder == host_tid && deterministic()) {
            schedule(tid, ScheduleEvent::Reason::Exited);
        }
        if (host_tid == launched.guest && !launched.in_namespaces) {
            // Without a pid namespace nothing ends the guest's leftover processes: end them like one would.
            kill_everything();
        }
    }

    void on_interrupt_stop(Thread& thread) {
        if (std::exchange(thread.debugger_stop_requested, false)) {
            debug_hook->on_interrupt(*thread.task, stopped_threads(thread));
        }
        if (mark_notified_restart(thread)) {
            return;
        }
        if (thread.state == ThreadState::Starting) {
            on_first_stop(thread.task->host_tid(), 0);
            return;
        }
        if (thread.state == ThreadState::GroupStopped) {
            // The job-control stop ended (SIGCONT): the thread may run again.
            thread.state = ThreadState::Ready;
            if (!deterministic()) {
                resume(thread);
            }
            return;
        }
        if (thread.interrupt_requested) {
            thread.interrupt_requested = false;
            if (deterministic() && holder == thread.task->host_tid()) {
                yield(thread, ScheduleEvent::Reason::Blocked, ThreadState::Blocked);
                return;
            }
        }
        keep_running(thread);
    }

    void on_group_stop(Thread& thread) {
        ptrace(PTRACE_LISTEN, thread.task->host_tid(), nullptr, nullptr);
        thread.state = ThreadState::GroupStopped;
        if (deterministic() && holder == thread.task->host_tid()) {
            schedule(thread.task->tid(), ScheduleEvent::Reason::Blocked);
        }
    }

    bool namespace_init_dies_of(Thread& thread, int signal_number) {
        if (!launched.in_namespaces || thread.task->pid() != 1 || !default_action_kills(signal_number)) {
            return false;
        }
        procfs::SignalDispositions dispositions = procfs::signal_dispositions(thread.task->host_tid());
        uint64_t bit = uint64_t{1} << (signal_number - 1);
        // A blocked signal stays pending (a signalfd or sigwait may take it) instead of killing.
        return signal_number == SIGKILL ||
               ((dispositions.caught | dispositions.ignored | dispositions.blocked) & bit) == 0;
    }

    // The kernel never lets a signal with the default action kill a pid namespace's init, but the guest's
    // init is an ordinary program that expects `kill -SEGV $$` to end it. Deliver that death ourselves.
    void die_as_namespace_init(Thread& thread, int signal_number, int32_t sender) {
        if (debug_hook != nullptr) {
            debug_hook->on_process_exit(*thread.task, stopped_threads(thread)); // its end, before the kill
        }
        emit(thread, SignalEvent{signal_number, 0, sender, true});
        initial_status = 128 + signal_number;
        kill_everything();
    }

    bool emulate_signal_to_namespace_init(Thread& thread, const SyscallStop& stop) {
        int target_pid = 0;
        int signal_number = 0;
        if (stop.number == SYS_kill || stop.number == SYS_rt_sigqueueinfo) {
            target_pid = static_cast<int>(stop.args[0]);
            signal_number = static_cast<int>(stop.args[1]);
        } else if (stop.number == SYS_tgkill || stop.number == SYS_rt_tgsigqueueinfo) {
            target_pid = static_cast<int>(stop.args[0]);
            signal_number = static_cast<int>(stop.args[2]);
        } else if (stop.number == SYS_tkill && static_cast<int>(stop.args[0]) == 1) {
            target_pid = 1;
            signal_number = static_cast<int>(stop.args[1]);
        }
        if (target_pid != 1 || signal_number == 0) {
            return false;
        }
        Thread* init = find(launched.guest);
        if (init == nullptr || !namespace_init_dies_of(*init, signal_number)) {
            return false;
        }
        die_as_namespace_init(*init, signal_number, thread.task->pid());
        return true;
    }

    // The Session holds `thread` at a ptrace stop while it does not run.
    static bool held_at_a_stop(const Thread& thread) {
        return thread.state == ThreadState::Ready || thread.state == ThreadState::Blocked ||
               thread.state == ThreadState::Waiting;
    }

    // `thread` and every other guest thread the Session holds stopped, for the debug hook.
    std::vector<Task*> stopped_threads(Thread& thread) {
        std::vector<Task*> stopped{thread.task.get()};
        for (auto& [host_tid, other] : threads) {
            if (&other != &thread && held_at_a_stop(other)) {
                stopped.push_back(other.task.get());
            }
        }
        return stopped;
    }

    static bool holds_signal(const Thread& thread, int signal_number) {
        return std::any_of(thread.outside_signals.begin(), thread.outside_signals.end(),
                           [signal_number](const SignalEvent& held) { return held.number == signal_number; });
    }

    // A kernel-made SIGTRAP (si_code > 0: breakpoint, step, watchpoint) may belong to the debugger.
    bool handled_by_debugger(Thread& thread, const siginfo_t& info) {
        if (debug_hook == nullptr || info.si_code <= 0) {
            return false;
        }
        DebugResume next = debug_hook->on_trap(*thread.task, info.si_code, stopped_threads(thread));
        if (next == DebugResume::NotMine) {
            return false;
        }
        thread.resume_request = PTRACE_CONT;
        keep_running(thread);
        return true;
    }

    void on_signal_stop(Thread& thread, int signal_number) {
        siginfo_t info{};
        ptrace(PTRACE_GETSIGINFO, thread.task->host_tid(), nullptr, &info);
        std::optional<SignalEvent> outside;
        if (thread.sent_signal && thread.sent_signal->number == signal_number) {
            outside = std::exchange(thread.sent_signal, std::nullopt);
            info.si_code = outside->code;
            info.si_pid = outside->sender_pid;
            info.si_uid = static_cast<uid_t>(outside->sender_uid);
            ptrace(PTRACE_SETSIGINFO, thread.task->host_tid(), nullptr, &info);
        } else if (sent_from_outside(info)) {
            outside = SignalEvent{signal_number, info.si_code, info.si_pid,
                                  false,         true,         static_cast<int32_t>(info.si_uid)};
            if (deterministic() && !interrupted_a_syscall(*thread.task)) {
                if (options.interactive && holds_signal(thread, signal_number)) {
                    // The first is still waiting for a syscall of a thread that computes without any
                    // (nothing preempts it without a PMU): a second Ctrl-C or kill ends the run, as the
                    // user means it to.
                    forced_termination = signal_number;
                    kill_everything();
                    return;
                }
                thread.outside_signals.push_back(*outside);
                blocking.guest_moved();
                thread.resume_signal = 0;
                keep_running(thread);
                return;
            }
        }
        if (signal_number == SIGTRAP && handled_by_debugger(thread, info)) {
            return;
        }
        if (signal_number == SIGSEGV && faults_enabled) {
            for (SyscallInterceptor* interceptor : interceptors) {
                if (interceptor->on_fault(*thread.task, signal_number)) {
                    keep_running(thread);
                    return;
                }
            }
        }
        if (debug_hook != nullptr) {
            debug_hook->on_signal(*thread.task, signal_number, stopped_threads(thread));
        }
        if (namespace_init_dies_of(thread, signal_number)) {
            die_as_namespace_init(thread, signal_number, info.si_pid);
            return;
        }
        procfs::SignalDispositions dispositions = procfs::signal_dispositions(thread.task->host_tid());
        uint64_t bit = uint64_t{1} << (signal_number - 1);
        bool fatal =
            default_action_kills(signal_number) && ((dispositions.caught | dispositions.ignored) & bit) == 0;
        emit(thread, SignalEvent{signal_number, info.si_code, info.si_pid, fatal, outside.has_value(),
                                 outside ? outside->sender_uid : 0});
        thread.resume_signal = signal_number;
        keep_running(thread);
    }

    void handle_status(pid_t host_tid, int status) {
        spdlog::trace("wait status {:#x} of thread {} (token holder {})", status, host_tid, holder);
        // The thread ran up to this stop: what was predicted meanwhile (a check on the running holder) may
        // be stale already.
        blocking.guest_runs();
        if (WIFEXITED(status) || WIFSIGNALED(status)) {
            blocking.guest_moved();
            on_gone(host_tid, status);
            return;
        }
        if (!WIFSTOPPED(status)) {
            return;
        }
        const int signal_number = WSTOPSIG(status);
        const int event = status >> 16;
        Thread* thread = find(host_tid);
        if (thread == nullptr) {
            // A new thread's first stop may arrive before its parent's clone event.
            if (event == PTRACE_EVENT_STOP) {
                on_first_stop(host_tid, status);
            } else {
                ptrace(PTRACE_CONT, host_tid, nullptr, 0);
            }
            return;
        }
        if (killing) {
            ptrace(PTRACE_CONT, host_tid, nullptr, 0);
            return;
        }
        thread->task->forget_stop(); // the thread ran since its last stop
        if (event != PTRACE_EVENT_STOP || !thread->interrupt_requested) {
            blocking.guest_moved();
        }
        if (event != PTRACE_EVENT_EXEC) {
            // After an exec the buffer's address names the new program's memory; the old program's calls
            // were taken at the execve's entry, and none can have been made since.
            take_buffered_calls(*thread);
        }
        switch (event) {
        case PTRACE_EVENT_SECCOMP:
            on_seccomp_stop(*thread);
            return;
        case PTRACE_EVENT_CLONE:
        case PTRACE_EVENT_FORK:
        case PTRACE_EVENT_VFORK:
            on_new_task(*thread, event);
            return;
        case PTRACE_EVENT_VFORK_DONE:
            thread->state = ThreadState::Ready;
            thread->resume_request = PTRACE_CONT;
            if (!deterministic()) {
                resume(*thread);
            }
            return;
        case PTRACE_EVENT_EXEC:
            on_exec(*thread);
            return;
        case PTRACE_EVENT_EXIT:
            on_exit_event(*thread);
            return;
        case PTRACE_EVENT_STOP:
            if (signal_number == SIGSTOP || signal_number == SIGTSTP || signal_number == SIGTTIN ||
                signal_number == SIGTTOU) {
                on_group_stop(*thread);
            } else {
                on_interrupt_stop(*thread);
            }
            return;
        default:
            break;
        }
        if (signal_number == (SIGTRAP | 0x80)) {
            on_syscall_exit_stop(*thread);
            return;
        }
        on_signal_stop(*thread, signal_number);
    }

    // ---- waiting ----
    // The next wait status of one thread; nullopt when it is no longer the tracer's to wait for.
    std::optional<int> wait_for_thread(pid_t host_tid) {
        for (;;) {
            int status = 0;
            const pid_t result = waitpid(host_tid, &status, __WALL);
            if (result == host_tid) {
                ++stop_count;
                return status;
            }
            if (result < 0 && errno == EINTR) {
                continue;
            }
            return std::nullopt;
        }
    }

    // Returns a waitpid result, or nullopt after `timeout_ns` (negative: no timeout) or a termination signal.
    std::optional<std::pair<pid_t, int>> wait_for_status(int64_t timeout_ns) {
        const int64_t deadline = monotonic_ns() + timeout_ns;
        for (;;) {
            if (statuses_pending) {
                int status = 0;
                const pid_t pid = waitpid(-1, &status, __WALL | WNOHANG);
                if (pid > 0) {
                    ++stop_count;
                    return std::make_pair(pid, status);
                }
                if (pid < 0 && errno == ECHILD) {
                    // Nothing left to wait for: whatever we still track is gone.
                    threads.clear();
                    return std::nullopt;
                }
                statuses_pending = pid != 0;
            }
            if (blocking.holder_left_cpu(holder)) {
                return std::nullopt;
            }
            const int64_t remaining = timeout_ns < 0 ? -1 : std::max<int64_t>(deadline - monotonic_ns(), 0);
            if (!wait_for_wakeup(remaining)) {
                return std::nullopt; // timed out, or a termination signal came
            }
        }
    }

    // Sleeps until a thread stops (SIGCHLD) or a notified syscall is answered, then true; false once a
    // termination signal comes or `timeout_ns` (negative: none) passes.
    bool wait_for_wakeup(int64_t timeout_ns) {
        if (notifications.holds()) {
            on_notification(); // held back while a debugger's diversion ran
            return true;
        }
        // The debugger's requests come last, so that an inactive notification descriptor can be left out.
        pollfd sources[3] = {{signals.get(), POLLIN, 0},
                             {notifications.descriptor(), POLLIN, 0},
                             {debugger_stop_requests, POLLIN, 0}};
        if (!notifications.active()) {
            sources[1] = sources[2];
        }
        const nfds_t count = (notifications.active() ? 2 : 1) + (debugger_stop_requests >= 0 ? 1 : 0);
        timespec timeout{static_cast<time_t>(timeout_ns / 1'000'000'000),
                         static_cast<long>(timeout_ns % 1'000'000'000)};
        const int ready = ppoll(sources, count, timeout_ns < 0 ? nullptr : &timeout, nullptr);
        if (ready < 0) {
            return true; // EINTR: look again
        }
        if (ready == 0) {
            return false;
        }
        if ((sources[0].revents & POLLIN) != 0) {
            take_signals();
        }
        if (debugger_stop_requests >= 0 && (sources[count - 1].revents & POLLIN) != 0) {
            uint64_t requests = 0;
            if (read(debugger_stop_requests, &requests, sizeof requests) == sizeof requests) {
                stop_for_debugger();
            }
        }
        if (notifications.active() && (sources[1].revents & POLLIN) != 0) {
            on_notification();
        } else if (notifications.active() && sources[1].revents != 0) {
            notifications = SyscallNotifications{}; // no guest process is left to notify
        }
        return termination_signal == 0;
    }

    // Reads the signalfd: a SIGCHLD means statuses to wait for, another signal a termination request.
    void take_signals() {
        // One read takes every pending signal: there are five in the set, each pending once at most.
        std::array<signalfd_siginfo, 5> received{};
        const ssize_t bytes = read(signals.get(), received.data(), sizeof received);
        for (size_t index = 0; bytes > 0 && index < static_cast<size_t>(bytes) / sizeof received[0];
             ++index) {
            if (received[index].ssi_signo == SIGCHLD) {
                statuses_pending = true;
                if (foreground != nullptr) {
                    foreground->on_child_state_change(); // Ctrl-Z: returns once the job is continued
                }
            } else if (received[index].ssi_signo == ContextSwitchAlarm::kSignal) {
                blocking.on_switch_signal();
            } else {
                termination_signal = static_cast<int>(received[index].ssi_signo);
                termination_sender = static_cast<pid_t>(received[index].ssi_pid);
            }
        }
    }

    void drain_termination_signals() {
        take_signals();
        termination_signal = 0;
    }

    // A debugger's diversion (Session::run_alone_untraced): `task` runs alone until a stop of its own. A
    // process or thread it makes is killed at once: it is none of the guest's.
    int run_alone_untraced(Task& task, int request) {
        const pid_t tid = task.host_tid();
        task.flush_registers();
        auto go_on = [&](int how) {
            if (ptrace(static_cast<__ptrace_request>(how), tid, nullptr, 0) != 0) {
                throw Error(ErrorCode::TracerInternal, "cannot run thread " + std::to_string(task.tid()) +
                                                           " for the debugger: " + std::strerror(errno));
            }
        };
        go_on(request);
        for (;;) {
            int status = 0;
            const pid_t found = waitpid(tid, &status, WNOHANG | __WALL);
            const int event = found == tid && WIFSTOPPED(status) ? status >> 16 : 0;
            if (event == PTRACE_EVENT_SECCOMP) {
                go_on(PTRACE_CONT); // the syscall runs in the kernel
                continue;
            }
            if (event == PTRACE_EVENT_FORK || event == PTRACE_EVENT_VFORK || event == PTRACE_EVENT_CLONE) {
                unsigned long child = 0;
                ptrace(PTRACE_GETEVENTMSG, tid, nullptr, &child);
                kill(static_cast<pid_t>(child), SIGKILL);
                while (waitpid(static_cast<pid_t>(child), nullptr, __WALL) < 0 && errno == EINTR) {
                }
                task.forget_stop();
                return status; // the debugger undoes the rest by replaying
            }
            if (found == tid) {
                task.forget_stop();
                return status;
            }
            if (found < 0 && errno != EINTR) {
                throw Error(ErrorCode::TracerInternal, "waitpid of thread " + std::to_string(task.tid()) +
                                                           " for the debugger: " + std::strerror(errno));
            }
            pollfd sources[2] = {{signals.get(), POLLIN, 0}, {notifications.descriptor(), POLLIN, 0}};
            if (ppoll(sources, notifications.active() ? 2 : 1, nullptr, nullptr) <= 0) {
                continue;
            }
            if ((sources[0].revents & POLLIN) != 0) {
                take_signals(); // others' stops wait for the Session's own waitpid
            }
            if (notifications.active() && (sources[1].revents & POLLIN) != 0) {
                if (const auto notification = notifications.receive()) {
                    if (notification->host_tid == tid) {
                        notifications.run_in_kernel(notification->id);
                    } else {
                        notifications.hold(*notification);
                    }
                }
            }
        }
    }

    // The debugger wants the guest stopped: the running thread is interrupted, and its interrupt stop is
    // the debugger's (on_interrupt_stop). When no thread runs, the holder (or any thread) stops at once.
    void stop_for_debugger() {
        Thread* running = find(holder);
        if (running == nullptr || running->state != ThreadState::Running) {
            running = nullptr;
            for (auto& [host_tid, thread] : threads) {
                if (thread.state == ThreadState::Running) {
                    running = &thread;
                    break;
                }
            }
        }
        if (running != nullptr) {
            running->debugger_stop_requested = true;
            ptrace(PTRACE_INTERRUPT, running->task->host_tid(), nullptr, nullptr);
            return;
        }
        for (auto& [host_tid, thread] : threads) {
            if (held_at_a_stop(thread)) {
                debug_hook->on_interrupt(*thread.task, stopped_threads(thread));
                return;
            }
        }
    }

    // The token holder has not stopped for a while: find out whether it is blocked in the kernel.
    void check_holder() {
        Thread* thread = find(holder);
        if (thread == nullptr || thread->interrupt_requested) {
            return;
        }
        pid_t host_tid = thread->task->host_tid();
        const bool after_switch = blocking.take_check_after_switch();
        if (after_switch && notifications.pending()) {
            return; // most likely it waits for that notification's answer, the tracer's next job
        }
        if (holds_exits()) {
            const std::optional<SyscallStop> sleeping_in = procfs::current_syscall(host_tid);
            if (sleeping_in && (sleeping_in->number == SYS_execve || sleeping_in->number == SYS_execveat)) {
                release_held_exits(thread->task->host_pid());
                return;
            }
        }
        char state = procfs::thread_state(host_tid);
        const std::optional<SyscallStop> current = procfs::current_syscall(host_tid);
        if (current && !thread->guest_r9 && notifications.pending()) {
            return; // it may wait for a notification not yet read, which is the tracer's next job
        }
        if (state == 'S' && current && opens_fifo(*thread->task, *current)) {
            // Interrupted, the open would be retried only while no other thread is in the kernel, and the
            // other end's open the same way: the two would never wait at the same time. So it stays in the
            // kernel, and rejoins the schedule at its next stop.
            yield(*thread, ScheduleEvent::Reason::Blocked, ThreadState::Released);
            return;
        }
        if (state == 'S' && current && !std::exchange(thread->sleeps_untrapped, true)) {
            blocking.watch_holder(*thread); // its next sleep is seen at once
        }
        if (state == 'S' && current && after_switch && !interrupting_helps(*thread)) {
            return; // nothing could use the token now; the check interval looks again
        }
        if (state == 'S' && current) {
            thread->interrupt_requested = true;
            ptrace(PTRACE_INTERRUPT, host_tid, nullptr, nullptr);
            return;
        }
        check_interval_ns = std::min(check_interval_ns * 2, kMaxCheckNs);
        // A parked sleep waits for virtual time, which a thread that makes no syscalls does not move.
        if (state == 'R' && !thread->spin_warned &&
            (blocking.others_can_run(holder) || blocking.next_wait_deadline()) &&
            monotonic_ns() - thread->resumed_at_ns > kSpinWarningNs) {
            thread->spin_warned = true;
            // Once per thread: without a PMU nothing can preempt it deterministically, and if it waits for
            // one of the others the run never ends (docs/USER_GUIDE.md, "Threads that spin").
            spdlog::warn("thread {} spins without syscalls for {} s while other threads wait; without a PMU "
                         "nothing preempts it, so if it waits for one of them this run never ends",
                         thread->task->tid(), kSpinWarningNs / 1'000'000'000);
        }
    }

    // The sleeping `call` opens a FIFO: it waits for the other end's opener, maybe another guest thread.
    static bool opens_fifo(Task& task, const SyscallStop& call) {
        if (call.number != SYS_open && call.number != SYS_openat && call.number != SYS_openat2) {
            return false;
        }
        const bool at_directory = call.number != SYS_open;
        const auto path = virt::GuestPathLookup::read_path(task, call.args[at_directory ? 1 : 0]);
        const int dirfd = at_directory ? static_cast<int>(call.args[0]) : AT_FDCWD;
        struct stat status {};
        const virt::GuestPathLookup::Found found =
            path ? virt::GuestPathLookup::find(task, dirfd, *path, true) : virt::GuestPathLookup::Found{};
        return found.file.get() >= 0 && fstat(found.file.get(), &status) == 0 && S_ISFIFO(status.st_mode);
    }

    // The holder sleeps in the kernel: whether giving the token to another thread now gets anything done.
    // Not when the holder was chosen because every thread waits (it waits in the kernel for the outside
    // world) and no timer is armed, nor when the others' waits cannot be predicted: the check interval
    // then hands the token round, with its back-off, instead of a switch each time.
    bool interrupting_helps(const Thread& holding) {
        const bool timers_armed = timer_source != nullptr && timer_source->armed();
        return timers_armed || blocking.next_wait_deadline() || !holding.outside_signals.empty() ||
               (!holding.wait_in_kernel && blocking.others_can_run(holder));
    }

    // How long to let the holder run before checking on it; negative when neither another thread nor a
    // timer could use the token (then there is nothing to gain from interrupting it). A holder blocked in
    // the kernel may be waiting for a virtual timer, which only fires once it gives up the token.
    int64_t holder_timeout() {
        if (!deterministic() || holder == 0) {
            return -1;
        }
        const bool timers_armed = timer_source != nullptr && timer_source->armed();
        Thread* holding = find(holder);
        // A signal held for the holder must interrupt it if it blocks in a syscall nothing traps.
        const bool signal_held = holding != nullptr && !holding->outside_signals.empty();
        return blocking.others_want_token(holder) || timers_armed || holds_exits() || signal_held
                   ? check_interval_ns
                   : -1;
    }

    bool holds_exits() const {
        return std::any_of(threads.begin(), threads.end(),
                           [](const auto& entry) { return entry.second.held_exit_status.has_value(); });
    }

    // The holder execs: the kernel ends the other threads of its process and waits for them to be gone, so
    // the ones held at their exit stops must go now. Every one of them is brought to its exit stop first,
    // so that they are reported in tid order in every run.
    void release_held_exits(pid_t host_pid) {
        std::vector<pid_t> ending;
        for (auto& [other_tid, other] : threads) {
            if (other.task->host_pid() == host_pid && other_tid != holder) {
                ending.push_back(other_tid);
            }
        }
        for (pid_t ending_tid : ending) {
            await_exit_stop(ending_tid);
        }
        for (pid_t ending_tid : ending) {
            release_exit(ending_tid);
        }
    }

    // Waits until a dying thread whose exit is not reported yet is held at its exit stop (or gone).
    void await_exit_stop(pid_t host_tid) {
        for (Thread* thread = find(host_tid);
             thread != nullptr && !thread->held_exit_status && !thread->exit_reported;
             thread = find(host_tid)) {
            const std::optional<int> status = wait_for_thread(host_tid);
            if (!status || WIFEXITED(*status) || WIFSIGNALED(*status)) {
                on_gone(host_tid, status.value_or(0));
                return;
            }
            if (*status >> 16 == PTRACE_EVENT_EXIT) {
                unsigned long message = 0;
                ptrace(PTRACE_GETEVENTMSG, host_tid, nullptr, &message);
                thread->state = ThreadState::Exiting;
                thread->held_exit_status = shell_status(static_cast<int>(message));
                return;
            }
            ptrace(PTRACE_CONT, host_tid, nullptr, 0);
        }
    }

    // One interceptor's lists, asked once per run: building them walks the syscall table.
    struct InterceptorTraps {
        std::set<int> trapped;
        std::vector<ConditionalTrap> conditional;
        std::set<int> notifiable;
        bool traps(int number) const {
            return trapped.contains(number) || trapped.contains(SyscallInterceptor::kAllSyscalls) ||
                   std::any_of(conditional.begin(), conditional.end(),
                               [&](const ConditionalTrap& trap) { return trap.number == number; });
        }
    };

    // The trapped syscalls that every interceptor trapping them can answer from a notification: those
    // trapped whatever their arguments, and those trapped on one condition only, which the notifying filter
    // then checks the same way. None under a debugger, whose single steps and breakpoints expect every
    // trapped syscall to stop.
    struct NotifiedSyscalls {
        std::set<int> always;
        std::vector<ConditionalTrap> conditional;
    };
    // `trapped` and `conditional`: what the filter traps, the union of `wanted`'s and the Session's own.
    NotifiedSyscalls notifiable_syscalls(const std::set<int>& trapped,
                                         const std::vector<ConditionalTrap>& conditional,
                                         const std::vector<InterceptorTraps>& wanted) const {
        NotifiedSyscalls notified;
        if (debug_hook != nullptr) {
            return notified;
        }
        std::set<int> candidates = epoch_only_syscalls;
        for (const InterceptorTraps& traps : wanted) {
            candidates.insert(traps.notifiable.begin(), traps.notifiable.end());
        }
        for (int number : candidates) {
            const bool all_can =
                std::all_of(wanted.begin(), wanted.end(), [&](const InterceptorTraps& traps) {
                    return !traps.traps(number) || traps.notifiable.contains(number);
                });
            if (!all_can || kSchedulerSyscalls.contains(number)) {
                continue;
            }
            std::vector<ConditionalTrap> conditions;
            std::copy_if(conditional.begin(), conditional.end(), std::back_inserter(conditions),
                         [&](const ConditionalTrap& trap) { return trap.number == number; });
            // A conditional trap (read-only opens) mostly lets the kernel run the syscall, whose event an
            // event sink needs from its exit stop: with sinks, it stays a ptrace stop.
            if (trapped.contains(number) && virt::GuestOpen::opens(number)) {
                // Opens of unnamed files stay ptrace stops: hermit does not make those (virt/GuestOpen.h).
                notified.conditional.push_back(virt::GuestOpen::notify_condition(number));
            } else if (trapped.contains(number)) {
                notified.always.insert(number);
            } else if (conditions.size() == 1 && sinks.empty()) {
                notified.conditional.push_back(conditions.front());
            }
        }
        return notified;
    }

    void event_loop() {
        while (!threads.empty()) {
            if (const int signal_number = std::exchange(termination_signal, 0);
                signal_number != 0 && !killing) {
                on_termination_signal(signal_number);
            }
            if (deterministic() && holder == 0) {
                schedule(0, ScheduleEvent::Reason::Yield);
            }
            if (Thread* thread = find(holder); thread != nullptr && thread->entry_deferred) {
                on_seccomp_stop(*thread);
                continue;
            }
            auto status = wait_for_status(killing ? -1 : holder_timeout());
            if (status) {
                handle_status(status->first, status->second);
            } else if (termination_signal == 0 && holder != 0) {
                check_holder();
            }
        }
    }

    // SIGINT, SIGTERM or SIGHUP came to hermit. An interactive run passes the first to the guest's process
    // group, as a terminal would (the guest's handlers run, at a deterministic point: an outside signal);
    // another one, or any in a replay, ends the guest outright.
    void on_termination_signal(int signal_number) {
        blocking.guest_moved();
        if (options.interactive && forwarded_termination == 0 && launched.guest > 0) {
            forwarded_termination = signal_number;
            forwarded_sender = termination_sender;
            kill(-launched.guest, signal_number);
            return;
        }
        // The same signal again from the same sender is the same request (GNU timeout sends it to hermit
        // and at once to its own process group, hermit's): whether the guest took the first before the
        // second came is a matter of timing, and must not decide between its handler and a kill.
        if (options.interactive && signal_number == forwarded_termination &&
            termination_sender == forwarded_sender) {
            return;
        }
        forced_termination = signal_number;
        kill_everything();
    }

    // Whether a guest thread of another process than `host_pid` is still there.
    bool others_outlive(pid_t host_pid) const {
        return std::any_of(threads.begin(), threads.end(),
                           [&](const auto& entry) { return entry.second.task->host_pid() != host_pid; });
    }

    void kill_everything() {
        killing = true;
        holder = 0;
        if (launched.guest > 0) {
            kill(-launched.guest, SIGKILL);
            kill(launched.guest, SIGKILL);
        }
        for (auto& [host_tid, thread] : threads) {
            syscall(SYS_tgkill, thread.task->host_pid(), host_tid, SIGKILL);
            // A thread at its exit stop (held, or reached while an error was on its way) is past the
            // SIGKILL: it finishes dying only when resumed. For the others this fails harmlessly.
            thread.held_exit_status.reset();
            ptrace(PTRACE_CONT, host_tid, nullptr, 0);
        }
    }

    void reap_everything() {
        kill_everything();
        while (!threads.empty()) {
            int status = 0;
            pid_t pid = waitpid(-1, &status, __WALL);
            if (pid < 0) {
                if (errno == EINTR) {
                    continue;
                }
                break;
            }
            if (WIFEXITED(status) || WIFSIGNALED(status)) {
                threads.erase(pid);
            } else {
                ptrace(PTRACE_CONT, pid, nullptr, 0);
            }
        }
        threads.clear();
    }
};

Session::Session(SessionOptions options) : state_(std::make_unique<State>()) {
    state_->options = std::move(options);
    state_->policy = make_schedule_policy(SchedulePolicyOptions{});
}

Session::~Session() {
    if (!state_->threads.empty()) {
        state_->reap_everything();
    }
}

void Session::add_interceptor(SyscallInterceptor* interceptor) {
    state_->interceptors.push_back(interceptor);
}

void Session::add_event_sink(EventSink* sink) {
    state_->sinks.push_back(sink);
}

void Session::set_schedule_policy(std::unique_ptr<SchedulePolicy> policy) {
    state_->policy = std::move(policy);
}

uint64_t Session::logical_time_ns() const {
    return state_->logical_time_ns;
}

void Session::advance_logical_time(uint64_t ns) {
    state_->logical_time_ns += ns;
}

void Session::set_time_source(std::function<uint64_t()> now) {
    state_->time_source = std::move(now);
}

void Session::set_virtual_clock(virt::VirtualClock* clock) {
    state_->virtual_clock = clock;
    state_->blocking.set_virtual_clock(clock);
}

void Session::set_timer_source(TimerSource* timers) {
    state_->timer_source = timers;
    state_->blocking.set_timer_source(timers);
}

int Session::terminated_by() const {
    return state_->forced_termination;
}

int Session::run_alone_untraced(Task& task, int request) {
    return state_->run_alone_untraced(task, request);
}

void Session::set_debug_hook(DebugHook* hook, int stop_requests) {
    state_->debug_hook = hook;
    state_->debugger_stop_requests = stop_requests;
}

int Session::run() {
    State& state = *state_;
    const SessionOptions& options = state.options;
    if (options.argv.empty()) {
        throw Error(ErrorCode::MissingCommand);
    }
    LaunchOptions launch;
    launch.executable = resolve_executable(options.argv[0], search_path_of(options.env), options.cwd);
    launch.argv = options.argv;
    launch.env = options.env;
    launch.cwd = options.cwd;
    launch.namespaces = options.namespaces;
    launch.disable_aslr = options.disable_aslr;
    launch.stand_ins = options.stand_ins ? &*options.stand_ins : nullptr;
    launch.stdin_file = options.stdin_file;
    launch.stdin_offset = options.stdin_offset;
    launch.null_outputs = options.null_outputs;
    launch.overlays = options.overlays;
    launch.own_mounts = options.own_mounts;
    launch.before_exec = options.before_exec;
    // What a replay needs and the host lost since the recording (its cwd, system files) exists in the
    // guest's mount namespace; the plan's scratch directory lives as long as the guest.
    std::optional<AbsentPaths> absent_paths;
    if (options.namespaces) {
        std::vector<std::string> files;
        for (const FileOverlay& overlay : options.overlays) {
            files.push_back(overlay.guest_path);
        }
        absent_paths.emplace(options.cwd.empty() ? std::vector<std::string>{} : std::vector{options.cwd},
                             files);
        for (const std::string& path : absent_paths->unreachable()) {
            spdlog::warn("{} is gone since it was recorded and cannot be made in the guest's namespace (its "
                         "directory has mounts below it): the replay may diverge where the guest uses it",
                         path);
        }
        if (!options.throwaway_directory.empty() &&
            !absent_paths->add_throwaway_layer(options.throwaway_directory)) {
            spdlog::warn("{} cannot have a throwaway layer (it is / or has mounts below it): what the guest "
                         "writes there stays",
                         options.throwaway_directory);
        }
        launch.absent_paths = &*absent_paths;
    }

    std::set<int> trapped;
    std::vector<ConditionalTrap> trapped_conditionally;
    if (options.deterministic_scheduling) {
        trapped = kSchedulerSyscalls;
    }
    std::vector<State::InterceptorTraps> wanted;
    for (SyscallInterceptor* interceptor : state.interceptors) {
        const State::InterceptorTraps& traps = wanted.emplace_back(State::InterceptorTraps{
            interceptor->trapped_syscalls(), interceptor->conditionally_trapped_syscalls(),
            interceptor->notifiable_syscalls()});
        trapped.insert(traps.trapped.begin(), traps.trapped.end());
        trapped_conditionally.insert(trapped_conditionally.end(), traps.conditional.begin(),
                                     traps.conditional.end());
        state.faults_enabled |= interceptor->handles_faults();
    }
    if (options.deterministic_scheduling && !trapped.contains(SyscallInterceptor::kAllSyscalls)) {
        for (int number : kFileSystemContextSyscalls) {
            const bool conditional =
                std::any_of(trapped_conditionally.begin(), trapped_conditionally.end(),
                            [&](const ConditionalTrap& trap) { return trap.number == number; });
            if (trapped.insert(number).second && !conditional) {
                state.epoch_only_syscalls.insert(number);
            }
        }
    }
    state.trap_cpuid = options.trap_cpuid && state.faults_enabled;
    launch.trap_rdtsc = options.trap_rdtsc && state.faults_enabled;
    TrustedCallSite call_site{HERMIT_BUFFER_CALL_SITE_RETURN, {}};
    for (SyscallInterceptor* interceptor : state.interceptors) {
        const std::set<int> buffered = interceptor->buffered_syscalls();
        call_site.syscalls.insert(buffered.begin(), buffered.end());
    }
    SeccompFilter filter(trapped, trapped_conditionally, call_site);
    launch.filter = &filter;
    const State::NotifiedSyscalls notified =
        state.notifiable_syscalls(trapped, trapped_conditionally, wanted);
    const SeccompFilter notifying =
        SeccompFilter::notifying(notified.always, notified.conditional, call_site);
    if (!notified.always.empty() || !notified.conditional.empty()) {
        launch.notifying_filter = &notifying;
    }

    // Stops arrive as SIGCHLD and termination requests as signals: both are read from a signalfd. Under a
    // debugger that can stop the guest, termination is the debugger's to handle (it ends the session).
    sigemptyset(&state.wait_signals);
    sigaddset(&state.wait_signals, SIGCHLD);
    if (options.deterministic_scheduling && state.blocking.enable_switch_alarm()) {
        sigaddset(&state.wait_signals, ContextSwitchAlarm::kSignal);
    }
    if (state.debugger_stop_requests < 0) {
        for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
            sigaddset(&state.wait_signals, signal_number);
        }
    }
    sigprocmask(SIG_BLOCK, &state.wait_signals, &state.saved_mask);
    state.signals = UniqueFd(signalfd(-1, &state.wait_signals, SFD_NONBLOCK | SFD_CLOEXEC));
    if (state.signals.get() < 0) {
        sigprocmask(SIG_SETMASK, &state.saved_mask, nullptr);
        throw Error(ErrorCode::TracerInternal, std::string("signalfd: ") + std::strerror(errno));
    }
    // A guest that closes a pipe hermit writes to must not kill hermit.
    signal(SIGPIPE, SIG_IGN);

    const SharedCpu shared_cpu(options.deterministic_scheduling);
    state.launched = launch_guest(launch, kPtraceOptions);
    state.notifications = SyscallNotifications(std::move(state.launched.notifications));
    Thread& initial = state.add_thread(state.launched.guest, ThreadState::Running);
    state.emit(initial, ThreadStartEvent{0, true});
    state.emit(initial, ScheduleEvent{0, ScheduleEvent::Reason::Started});
    state.holder = state.launched.guest;
    initial.resumed_at_ns = monotonic_ns();
    state.blocking.watch_holder(initial);
    std::optional<TerminalForeground> foreground;
    if (options.interactive) {
        foreground.emplace(state.launched.guest);
        state.foreground = &*foreground;
    }

    try {
        state.event_loop();
    } catch (...) {
        state.reap_everything();
        sigprocmask(SIG_SETMASK, &state.saved_mask, nullptr);
        throw;
    }
    // A termination signal that came as the guest ended (timeout's second one) is for a run that is over:
    // unblocked, it would kill hermit before it finished, say, the recording.
    state.drain_termination_signals();
    sigprocmask(SIG_SETMASK, &state.saved_mask, nullptr);
    spdlog::debug("guest done: {} ptrace stops, {} notifications, {} events", state.stop_count,
                  state.notification_count, state.event_count);
    if (state.forced_termination != 0) {
        return 128 + state.forced_termination;
    }
    return state.initial_status.value_or(125);
}

} // namespace hermit::tracer
