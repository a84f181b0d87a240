#include "DebugTarget.h"

#include "GdbRegisterLayout.h"
#include "Replayer.h"
#include "formats/Error.h"
#include "tracer/Task.h"

#include <elf.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <utility>

namespace hermit::replay {

namespace {

using gdbserver::StopReason;
using gdbserver::ThreadId;

constexpr uint64_t kPageSize = 4096;

ThreadId thread_id(const tracer::Task& task) {
    return ThreadId{task.pid(), task.tid()};
}

std::vector<uint8_t> read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

uint64_t auxv_entry(const std::vector<uint8_t>& auxv) {
    for (size_t offset = 0; offset + sizeof(Elf64_auxv_t) <= auxv.size(); offset += sizeof(Elf64_auxv_t)) {
        Elf64_auxv_t entry;
        std::memcpy(&entry, auxv.data() + offset, sizeof(entry));
        if (entry.a_type == AT_ENTRY) {
            return entry.a_un.a_val;
        }
    }
    return 0;
}

} // namespace

DebugTarget::DebugTarget(GuestSession session, bool reversible, std::optional<FollowedProcess> follow)
    : session_(std::move(session)), bridge_(std::make_unique<DebugBridge>()),
      host_io_([this] { return host_pid_; }), follow_(follow) {
    if (reversible) {
        timeline_ = std::make_unique<ReplayTimeline>(static_cast<ReplayEngine&>(*this));
    }
}

bool DebugTarget::start() {
    return bridge_->start([this] {
        return session_([this](tracer::GuestRun& run, Replayer* replayer) {
            replayer_ = replayer;
            guest_session_ = &run.session();
            if (replayer_ != nullptr) {
                replayer_->silence_output_before(output_shown_until_);
            }
            run.add_interceptor(static_cast<tracer::SyscallInterceptor*>(this));
            run.add_event_sink(static_cast<tracer::EventSink*>(this));
            run.session().set_debug_hook(static_cast<tracer::DebugHook*>(this), bridge_->stop_requests());
        });
    });
}

std::optional<int> DebugTarget::finish() {
    bridge_->join();
    return bridge_->exit_status();
}

bool DebugTarget::on_tracer(const std::function<void()>& work) {
    bool ok = true;
    bridge_->call([&] {
        try {
            work();
        } catch (const std::exception& error) {
            spdlog::debug("debugger request failed: {}", error.what());
            ok = false;
        }
    });
    return ok;
}

tracer::Task* DebugTarget::find_task(const ThreadId& thread) {
    for (tracer::Task* task : stopped_) {
        if (thread.matches(thread_id(*task))) {
            return task;
        }
    }
    return nullptr;
}

std::vector<ThreadId> DebugTarget::threads() {
    std::vector<ThreadId> ids;
    for (tracer::Task* task : stopped_) {
        ids.push_back(thread_id(*task));
    }
    return ids;
}

std::vector<uint8_t> DebugTarget::read_registers(const ThreadId& thread) {
    std::vector<uint8_t> bytes;
    on_tracer([&] {
        tracer::Task* task = find_task(thread);
        if (task == nullptr) {
            return;
        }
        KernelRegisters registers;
        registers.general = task->registers();
        ptrace(PTRACE_GETFPREGS, task->host_tid(), nullptr, &registers.floating_point);
        bytes = gdb_registers_from_kernel(registers);
    });
    return bytes;
}

bool DebugTarget::write_registers(const ThreadId& thread, std::span<const uint8_t> bytes) {
    bool written = false;
    on_tracer([&] {
        tracer::Task* task = diverted_task(thread);
        if (task == nullptr) {
            return;
        }
        KernelRegisters registers;
        registers.general = task->registers();
        ptrace(PTRACE_GETFPREGS, task->host_tid(), nullptr, &registers.floating_point);
        if (!kernel_registers_from_gdb(bytes, registers)) {
            return;
        }
        task->set_registers(registers.general);
        written = ptrace(PTRACE_SETFPREGS, task->host_tid(), nullptr, &registers.floating_point) == 0;
    });
    return written;
}

size_t DebugTarget::read_memory(uint64_t address, std::span<uint8_t> out) {
    size_t count = 0;
    on_tracer([&] {
        if (stopped_.empty()) {
            return;
        }
        tracer::Task& task = *stopped_.front();
        // Page by page, so a read running into an unmapped page still returns what precedes it.
        while (count < out.size()) {
            uint64_t at = address + count;
            size_t chunk = std::min<uint64_t>(out.size() - count, kPageSize - at % kPageSize);
            if (!task.read(at, out.data() + count, chunk)) {
                break;
            }
            count += chunk;
        }
        // gdb must see the guest's own bytes, not the int3s standing in for them.
        auto hide = [&](uint64_t breakpoint, uint8_t original) {
            if (breakpoint >= address && breakpoint < address + count) {
                out[breakpoint - address] = original;
            }
        };
        for (const auto& [breakpoint, original] : breakpoints_) {
            hide(breakpoint, original);
        }
        if (one_shot_) {
            hide(one_shot_->address, one_shot_->original);
        }
    });
    return count;
}

bool DebugTarget::write_memory(uint64_t address, std::span<const uint8_t> bytes) {
    bool written = false;
    on_tracer([&] {
        if (tracer::Task* task = diverted_task(stop_.thread)) {
            written = task->write(address, bytes.data(), bytes.size());
        }
    });
    return written;
}

tracer::Task* DebugTarget::diverted_task(const ThreadId& thread) {
    tracer::Task* task = find_task(thread);
    if (task == nullptr || !timeline_ || diversion_) {
        return diversion_ ? &diversion_->task() : task;
    }
    if (stop_at_exit_ || guest_session_ == nullptr) {
        return nullptr; // a process at its end runs nothing more
    }
    diversion_.emplace(*task, *guest_session_);
    diverted_from_ = stop_;
    return task;
}

StopReason DebugTarget::run_diversion(Motion motion) {
    StopReason stop;
    stop.signal = SIGTRAP;
    on_tracer([&] {
        tracer::Task& task = diversion_->task();
        stop.thread = thread_id(task);
        const int status = diversion_->run(motion == Motion::Continue ? PTRACE_CONT : PTRACE_SINGLESTEP);
        if (!WIFSTOPPED(status) || (status >> 16) == PTRACE_EVENT_EXIT) {
            throw Error(ErrorCode::TimelineLost, "a function called from gdb ended the process");
        }
        user_regs_struct registers = task.registers();
        if (WSTOPSIG(status) != SIGTRAP) {
            stop.signal = WSTOPSIG(status);
        } else if (breakpoints_.contains(registers.rip - 1)) {
            registers.rip -= 1; // gdb expects the stop at the breakpoint's address
            task.set_registers(registers);
            stop.kind = StopReason::Kind::SoftwareBreakpoint;
        }
        stop_pc_ = registers.rip;
    });
    stop_ = stop;
    return stop;
}

void DebugTarget::end_diversion() {
    if (!diversion_) {
        return;
    }
    if (diversion_->spoiled()) {
        diversion_.reset();
        stop_ = timeline_->replay_to_current(); // a fresh guest, its pids untouched
        return;
    }
    on_tracer([&] {
        diversion_->undo();
        stop_pc_ = diversion_->task().registers().rip;
    });
    diversion_.reset();
    stop_ = diverted_from_;
}

std::optional<uint64_t> DebugTarget::thread_local_address(const ThreadId& thread, uint64_t offset,
                                                          uint64_t link_map) {
    std::optional<uint64_t> address;
    on_tracer([&] {
        if (tracer::Task* task = find_task(thread)) {
            address = thread_local_addresses_.address(*task, offset, link_map);
        }
    });
    return address;
}

std::optional<StopReason> DebugTarget::restart_program() {
    diversion_.reset(); // its process goes with the run
    if (known_program_ != 0) {
        // gdb reads the first program again and inserts its breakpoints anew; those it had are another's.
        known_program_ = 0;
        arm(StopSet{});
    }
    return timeline_->start_over();
}

StopReason DebugTarget::reverse_resume(gdbserver::ResumeKind kind, const ThreadId& thread,
                                       const gdbserver::InterruptCheck& interrupted) {
    end_diversion();
    return timeline_->reverse_resume(kind, thread, interrupted);
}

StopReason DebugTarget::resume(const gdbserver::ResumeRequest& request,
                               const gdbserver::InterruptCheck& interrupted) {
    const gdbserver::ThreadResume* action = request.action_for(stop_.thread);
    const Motion motion =
        action != nullptr && action->kind == gdbserver::ResumeKind::Step ? Motion::Step : Motion::Continue;
    if (diversion_) {
        bool restored = false;
        on_tracer([&] { restored = diversion_->registers_restored(); });
        if (!restored) {
            return run_diversion(motion);
        }
        end_diversion(); // gdb's call is over, or it only wrote memory: the replay goes on as recorded
    }
    if (!timeline_) {
        return run_forward(motion, interrupted).reason;
    }
    const StopSet armed = armed_stops();
    EngineStop stop = run_forward(motion, interrupted);
    timeline_->moved_forward(motion, armed, stop);
    return stop.reason;
}

void DebugTarget::stop_at_syscall_from(uint64_t event) {
    replayer_->stop_at_event(event, [this](uint64_t, tracer::Task& task) {
        if (!armed_event_) {
            return;
        }
        if (task.pid() != debugged_pid_) {
            event_stop_deferred_ = true; // gdb debugs one process: wait for its next syscall (on_event)
            return;
        }
        // The syscall's thread runs on from its entry: stop it when it is back in user code.
        plant_one_shot(task, task.registers().rip, true);
    });
}

void DebugTarget::kill() {
    diversion_.reset(); // the process goes: nothing to undo
    bridge_->abort();
}

void DebugTarget::detach() {
    end_diversion();
    arm(StopSet{});
    on_tracer([&] { detached_ = true; });
    motion_ = Motion::Continue;
    bridge_->release();
}

bool DebugTarget::before_resume(tracer::Task& task) noexcept {
    if (debugged_pid_ == 0 && follow_ && !follow_->at_exec && task.pid() == follow_->pid) {
        // The followed process's first resume, right after the fork returned in it: its first stop.
        try {
            attach_to(task);
            plant_one_shot(task, task.registers().rip, false);
        } catch (const std::exception& error) {
            spdlog::debug("cannot stop the followed process: {}", error.what());
        }
    }
    bool step = false;
    if (task.pid() != debugged_pid_) {
        forget_breakpoints_in(task);
        step = stepping_past_.contains(task.host_tid());
    } else {
        apply_watchpoints(task);
        step = !detached_ && (motion_ == Motion::StepAnyThread ||
                              (motion_ == Motion::Step && task.host_tid() == stop_host_tid_));
        const bool watch_step = !step && !detached_ && emulate_watches_ && watch_armed();
        if (watch_step) {
            watch_steps_.insert(task.host_tid());
        } else {
            watch_steps_.erase(task.host_tid());
        }
        step = step || watch_step;
        if (step && emulate_watches_) {
            remember_watched_bytes(task);
        }
    }
    if (step) {
        stepping_.insert(task.host_tid());
    } else {
        stepping_.erase(task.host_tid());
    }
    return step;
}

std::vector<uint8_t> DebugTarget::read_auxv() {
    std::vector<uint8_t> auxv;
    on_tracer([&] { auxv = read_file("/proc/" + std::to_string(host_pid_) + "/auxv"); });
    return auxv;
}

std::string DebugTarget::exec_file_path(int64_t) {
    return executable_;
}

std::string DebugTarget::run_monitor_command(std::string_view command) {
    if (command == "when") {
        return "Current event: " + std::to_string(event_count_) +
               ", debugger stops since: " + std::to_string(stops_since_event_) + "\n";
    }
    if (timeline_ && command == "checkpoint") {
        return "Checkpoint " + std::to_string(timeline_->add_checkpoint()) + " at event " +
               std::to_string(event_count_) + "\n";
    }
    if (timeline_ && command.starts_with("restart ")) {
        const std::string number(command.substr(8));
        const size_t checkpoint =
            number.find_first_not_of("0123456789") == std::string::npos && number.size() < 9
                ? std::stoul(number)
                : 0;
        if (!timeline_->restart_at(checkpoint)) {
            return "No checkpoint " + number + "\n";
        }
        return "Back at checkpoint " + number + " (event " + std::to_string(event_count_) +
               "); run 'maintenance flush register-cache' so gdb reads the guest again\n";
    }
    std::string help =
        "hermit monitor commands:\n"
        "  when          the replay position: events so far, debugger stops since the last one\n";
    if (timeline_) {
        help += "  checkpoint    remember the current position\n"
                "  restart N     go back (or forward) to checkpoint N\n";
    }
    return help;
}

void DebugTarget::attach_to(tracer::Task& task) {
    debugged_pid_ = task.pid();
    host_pid_ = task.host_pid();
    std::error_code error;
    executable_ =
        std::filesystem::read_symlink("/proc/" + std::to_string(host_pid_) + "/exe", error).string();
}

void DebugTarget::on_exec(tracer::Task& task) {
    if (debugged_pid_ != 0 && task.pid() == debugged_pid_ && !detached_) {
        on_new_program(task);
        return;
    }
    if (debugged_pid_ != 0 || (follow_ && (!follow_->at_exec || task.pid() != follow_->pid))) {
        return;
    }
    attach_to(task);
    // The first stop for gdb is at the program's entry point, once the dynamic loader is done.
    uint64_t entry = auxv_entry(read_file("/proc/" + std::to_string(host_pid_) + "/auxv"));
    if (entry != 0) {
        plant_one_shot(task, entry, false);
    }
}

void DebugTarget::on_new_program(tracer::Task& task) {
    // The old program's int3s, one-shot, image and debug registers went with it.
    for (const auto& [address, original] : breakpoints_) {
        waiting_breakpoints_.insert(address);
    }
    breakpoints_.clear();
    one_shot_.reset();
    image_.reset();
    watches_.fill(std::nullopt);
    ++watch_generation_;
    stepping_.erase(task.host_tid());
    watch_steps_.erase(task.host_tid());
    attach_to(task);
    ++program_;
    if (program_ > known_program_ && report_execs_) {
        // gdb loads the new program at this stop and inserts its breakpoints and watchpoints again.
        known_program_ = program_;
        waiting_breakpoints_.clear();
        requested_watches_.clear();
    }
    if (runs_known_program()) {
        stopped_ = {&task};
        for (uint64_t address : std::set<uint64_t>(std::exchange(waiting_breakpoints_, {}))) {
            plant_breakpoint(address);
        }
        set_watch_slots(requested_watches_);
        stopped_.clear();
    }
    if (report_execs_) {
        stop_at_exec_ = true;
        report_stop(task, exec_stop(task), {&task});
        stop_at_exec_ = false;
    }
}

StopReason DebugTarget::exec_stop(tracer::Task& task) {
    StopReason stop = signal_stop(task, SIGTRAP);
    stop.kind = StopReason::Kind::Exec;
    stop.exec_path = executable_;
    return stop;
}

void DebugTarget::on_event(const Event&) {
    // In a replay, the position in the recording (the Replayer, an earlier sink, has taken the event);
    // in a live run, the events so far.
    event_count_ = replayer_ != nullptr ? replayer_->position() : event_count_ + 1;
    ++events_in_run_;
    output_shown_until_ = std::max(output_shown_until_, event_count_);
    stops_since_event_ = 0;
    if (std::exchange(event_stop_deferred_, false) && armed_event_ && replayer_ != nullptr) {
        stop_at_syscall_from(replayer_->position());
    }
}

std::optional<StopReason> DebugTarget::classify_trap(tracer::Task& task, int si_code, bool was_stepping,
                                                     bool watch_step) {
    StopReason stop;
    stop.thread = thread_id(task);
    stop.signal = SIGTRAP;
    stop_at_event_ = false;
    user_regs_struct registers = task.registers();
    if (si_code == SI_KERNEL) {
        // An int3 leaves rip after itself; gdb expects the stop at the breakpoint's address.
        uint64_t address = registers.rip - 1;
        if (one_shot_ && one_shot_->address == address) {
            task.write(address, &one_shot_->original, 1);
            stop_at_event_ = one_shot_->at_event;
            one_shot_.reset();
            registers.rip = address;
            task.set_registers(registers);
            return stop;
        }
        if (breakpoints_.contains(address)) {
            registers.rip = address;
            task.set_registers(registers);
            stop.kind = StopReason::Kind::SoftwareBreakpoint;
            return stop;
        }
    }
    if (const std::optional<size_t> slot = triggered_watch(task, was_stepping)) {
        stop.kind = StopReason::Kind::Watchpoint;
        const WatchRange& watched = requested_watches_[watch_owners_[*slot]];
        stop.watch_address = watched.address;
        stop.watch_kind = watched.kind;
        return stop;
    }
    if (was_stepping && !watch_step) {
        return stop;
    }
    return std::nullopt;
}

tracer::DebugResume DebugTarget::on_trap(tracer::Task& task, int si_code,
                                         const std::vector<tracer::Task*>& stopped) {
    bool was_stepping = stepping_.erase(task.host_tid()) > 0;
    const bool watch_step = watch_steps_.erase(task.host_tid()) > 0;
    if (detached_) {
        return was_stepping ? tracer::DebugResume::Resume : tracer::DebugResume::NotMine;
    }
    if (task.pid() != debugged_pid_) {
        return step_past_breakpoint(task, si_code, was_stepping);
    }
    if (si_code == kTrapPerf && arrival_counter_) {
        stop_counted_ = true;
        report_stop(task, signal_stop(task, SIGTRAP), stopped);
        stop_counted_ = false;
        return tracer::DebugResume::Resume;
    }
    std::optional<StopReason> stop = classify_trap(task, si_code, was_stepping, watch_step);
    if (!stop) {
        return watch_step ? tracer::DebugResume::Resume : tracer::DebugResume::NotMine;
    }
    report_stop(task, *stop, stopped);
    return tracer::DebugResume::Resume;
}

void DebugTarget::on_signal(tracer::Task& task, int signal_number,
                            const std::vector<tracer::Task*>& stopped) {
    if (detached_ || task.pid() != debugged_pid_) {
        return;
    }
    report_stop(task, signal_stop(task, signal_number), stopped);
}

StopReason DebugTarget::signal_stop(tracer::Task& task, int signal_number) {
    // The signal ends a step of its thread, as natively: gdb sees the signal.
    stepping_.erase(task.host_tid());
    watch_steps_.erase(task.host_tid());
    stop_at_event_ = false;
    StopReason stop;
    stop.thread = thread_id(task);
    stop.signal = signal_number;
    return stop;
}

void DebugTarget::on_process_exit(tracer::Task& task, const std::vector<tracer::Task*>& stopped) {
    // The end is a stop to go back from; a live run cannot go back, and gdb sees its exit at once.
    if (!timeline_ || detached_ || task.pid() != debugged_pid_) {
        return;
    }
    stop_at_exit_ = true;
    report_stop(task, signal_stop(task, SIGKILL), stopped);
    stop_at_exit_ = false;
}

void DebugTarget::on_interrupt(tracer::Task& task, const std::vector<tracer::Task*>& stopped) {
    // gdb sees one process: a thread of it shows the stop when another process's thread was interrupted.
    tracer::Task* shown = &task;
    for (tracer::Task* thread : stopped) {
        if (shown->pid() != debugged_pid_ && thread->pid() == debugged_pid_) {
            shown = thread;
        }
    }
    StopReason stop;
    stop.thread = thread_id(*shown);
    stop.signal = SIGINT;
    stop_at_event_ = false;
    stop_interrupted_ = true;
    report_stop(*shown, stop, stopped);
    stop_interrupted_ = false;
}

void DebugTarget::report_stop(tracer::Task& task, const StopReason& stop,
                              const std::vector<tracer::Task*>& stopped) {
    stop_ = stop;
    stop_pc_ = task.registers().rip;
    stop_host_tid_ = task.host_tid();
    stopped_.clear();
    std::copy_if(stopped.begin(), stopped.end(), std::back_inserter(stopped_),
                 [this](const tracer::Task* thread) { return thread->pid() == debugged_pid_; });
    ++stops_since_event_;
    try {
        bridge_->serve_stop();
    } catch (const DebugRunAborted&) {
        stopped_.clear();
        throw;
    }
    stopped_.clear();
}

} // namespace hermit::replay
