#pragma once
// DebugTarget: a guest Session (a replay, or a live deterministic run) as a gdb remote target. The
// Session runs on a tracer thread (DebugBridge); this object is at once the gdbserver Target, driven by
// the server thread, and the Session's DebugHook, EventSink and exec watcher on the tracer thread.
//
// The guest first stops for gdb at the entry point of its executable (the dynamic loader has run, so
// gdb finds the libraries). Breakpoints are int3 bytes written into the guest; watchpoints use the x86
// debug registers of every thread, or, on a host whose debug registers never trap, single steps of the
// debugged process that compare the watched bytes (writes only). One guest thread runs at a time, so a
// stop of one is a stop of all.
//
// gdb debugs one guest process (rr's model): by default the initial one, or the one named by
// `hermit replay -f PID`. The other processes run on unseen: their threads are not gdb's, their traps
// are not stops, and a fork child of the debugged process gets the original bytes back where its
// parent's int3s were (a child sharing the memory, vfork, steps over them instead).
//
// It is also the forward-only ReplayEngine of a ReplayTimeline: a replay can be started over (the
// Session is killed and a new one runs the same recording), which is how the timeline goes back in
// time. A live run has no timeline, so gdb is not offered reverse execution there.
//
// When gdb takes exec events, an exec of the debugged process is a stop (gdb loads the new program there,
// and `catch exec` shows it) and the start of its history going backwards. Without them gdb keeps its view
// of the first program, and its breakpoints stay out of the later ones.
//
// In a replay, gdb's writes to registers or memory start a Diversion (Diversion.h): until gdb puts the
// registers back as they were at the stop, resuming runs the diverted thread freely (an inferior call),
// and then the process is restored and the replay goes on. Going back in time ends a diversion too.

#include "ArrivalCounter.h"
#include "DebugBridge.h"
#include "Diversion.h"
#include "GuestFileView.h"
#include "ProcessImage.h"
#include "ReplayEngine.h"
#include "ReplayTimeline.h"
#include "ThreadLocalAddresses.h"
#include "gdbserver/Target.h"
#include "tracer/DebugHook.h"
#include "tracer/EventSink.h"
#include "tracer/GuestRun.h"
#include "tracer/SyscallInterceptor.h"

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace hermit::replay {

class Replayer;

// The guest process gdb debugs, when it is not the initial one (`hermit replay -f PID`).
struct FollowedProcess {
    int32_t pid = 0;      // as the guest sees it, as in the recording
    bool at_exec = false; // first stop at the entry point of its (first) exec; else right after its fork
};

class DebugTarget : public gdbserver::Target,
                    private gdbserver::Breakpoints,
                    private gdbserver::Watchpoints,
                    private gdbserver::ReverseExecution,
                    private gdbserver::ThreadLocalStorage,
                    private gdbserver::Auxv,
                    private gdbserver::ExecFile,
                    private gdbserver::ExecEvents,
                    private gdbserver::MonitorCommands,
                    private gdbserver::Processes,
                    private gdbserver::StartOver,
                    private tracer::DebugHook,
                    private tracer::SyscallInterceptor,
                    private tracer::EventSink,
                    private ReplayEngine {
public:
    // Runs one guest session to its end after calling `attach` on its GuestRun (after the caller's own
    // interceptors) and, for a replay, its Replayer (nullptr for a live run); returns the guest's exit
    // status.
    using Attach = std::function<void(tracer::GuestRun&, Replayer*)>;
    using GuestSession = std::function<int(const Attach& attach)>;

    // `reversible`: the session is a replay that can be started over, so the target offers reverse
    // execution and checkpoints.
    // `follow`: the process to debug; nullopt: the initial one (the first to exec).
    DebugTarget(GuestSession session, bool reversible, std::optional<FollowedProcess> follow = std::nullopt);

    // Starts the guest and runs it to its first stop. False when it ended before reaching it.
    bool start();
    // The guest's exit status once it ended; nullopt if gdb killed it.
    std::optional<int> finish();
    // A replay: goes forward to recorded event `event` before gdb connects (`--goto-event`).
    void go_to_event(uint64_t event) { timeline_->go_to_event(event); }

    std::vector<gdbserver::ThreadId> threads() override;
    gdbserver::StopReason stop_reason() override { return stop_; }
    std::vector<uint8_t> read_registers(const gdbserver::ThreadId& thread) override;
    bool write_registers(const gdbserver::ThreadId& thread, std::span<const uint8_t> bytes) override;
    size_t read_memory(uint64_t address, std::span<uint8_t> out) override;
    bool write_memory(uint64_t address, std::span<const uint8_t> bytes) override;
    gdbserver::StopReason resume(const gdbserver::ResumeRequest& request,
                                 const gdbserver::InterruptCheck& interrupted) override;
    void kill() override;
    void detach() override;

    gdbserver::Breakpoints* breakpoints() override { return this; }
    gdbserver::Watchpoints* watchpoints() override { return this; }
    gdbserver::ReverseExecution* reverse() override {
        return timeline_ ? static_cast<gdbserver::ReverseExecution*>(this) : nullptr;
    }
    gdbserver::Auxv* auxv() override { return this; }
    gdbserver::ExecFile* exec_file() override { return this; }
    gdbserver::ExecEvents* exec_events() override { return this; }
    gdbserver::HostIo* host_io() override { return &host_io_; }
    gdbserver::MonitorCommands* monitor() override { return this; }
    gdbserver::Processes* processes() override { return this; }
    gdbserver::ThreadLocalStorage* thread_local_storage() override { return this; }
    gdbserver::StartOver* start_over() override {
        return timeline_ ? static_cast<gdbserver::StartOver*>(this) : nullptr;
    }

private:
    static constexpr size_t kDebugRegisterSlots = 4;

    bool insert_breakpoint(gdbserver::BreakpointKind type, uint64_t address, int kind) override;
    bool remove_breakpoint(gdbserver::BreakpointKind type, uint64_t address, int kind) override;
    bool insert_watchpoint(gdbserver::WatchKind kind, uint64_t address, uint64_t length) override;
    bool remove_watchpoint(gdbserver::WatchKind kind, uint64_t address, uint64_t length) override;
    std::vector<uint8_t> read_auxv() override;
    std::string exec_file_path(int64_t pid) override;
    void report_execs(bool enabled) override { report_execs_ = enabled; }
    std::string run_monitor_command(std::string_view command) override;
    // gdb's `run` in extended-remote mode: the replay from its start again, gdb's breakpoints kept.
    std::optional<gdbserver::StopReason> restart_program() override;
    gdbserver::StopReason reverse_resume(gdbserver::ResumeKind kind, const gdbserver::ThreadId& thread,
                                         const gdbserver::InterruptCheck& interrupted) override;

    // Diversions (tracer thread). A replay's stopped thread for gdb's writes: a diversion starts first.
    tracer::Task* diverted_task(const gdbserver::ThreadId& thread);
    // Runs the diversion to its next stop (an inferior call's end, a step, a signal).
    gdbserver::StopReason run_diversion(Motion motion);
    // Undoes the diversion, if there is one, and stands at the replay's stop again.
    void end_diversion();
    bool attached(int64_t) override { return false; }
    std::optional<uint64_t> thread_local_address(const gdbserver::ThreadId& thread, uint64_t offset,
                                                 uint64_t link_map) override;

    // ReplayEngine (server thread, guest stopped).
    EngineStop restart() override;
    StopSet armed_stops() override;
    void arm(const StopSet& stops) override;
    EngineStop run_forward(Motion motion, const gdbserver::InterruptCheck& interrupted) override;
    bool count_arrivals(uint64_t address, std::optional<uint64_t> limit) override;
    uint64_t counted_arrivals() override;
    void stop_counting() override;
    bool keep_image() override;
    bool restore_image() override;
    // Lets the guest go on and waits for its next stop or its end.
    EngineStop advance(Motion motion, const gdbserver::InterruptCheck& interrupted);
    gdbserver::StopReason end_of_run();

    // Tracer thread.
    tracer::DebugResume on_trap(tracer::Task& task, int si_code,
                                const std::vector<tracer::Task*>& stopped) override;
    bool before_resume(tracer::Task& task) noexcept override;
    std::set<int> trapped_syscalls() const override { return {}; }
    tracer::SyscallDecision on_entry(tracer::Task&, const tracer::SyscallStop&) override {
        return tracer::SyscallDecision::pass();
    }
    void on_signal(tracer::Task& task, int signal_number, const std::vector<tracer::Task*>& stopped) override;
    void on_process_exit(tracer::Task& task, const std::vector<tracer::Task*>& stopped) override;
    void on_interrupt(tracer::Task& task, const std::vector<tracer::Task*>& stopped) override;
    void on_exec(tracer::Task& task) override;
    // Opens `task`'s arrival counter anew before it runs (SyscallInterceptor: every way a thread goes on).
    void on_resume(tracer::Task& task) override;
    void on_event(const Event& event) override;
    // The stop of `task` for `signal_number` (a signal, or the end as SIGKILL); it ends a step of `task`.
    gdbserver::StopReason signal_stop(tracer::Task& task, int signal_number);
    // Shows gdb `stop` of `task` and serves it until it resumes the guest.
    void report_stop(tracer::Task& task, const gdbserver::StopReason& stop,
                     const std::vector<tracer::Task*>& stopped);

    // The classified stop, or nullopt when the trap is not the debugger's. `watch_step`: the step was
    // only the watchpoint emulation's, which stops only at a write.
    std::optional<gdbserver::StopReason> classify_trap(tracer::Task& task, int si_code, bool was_stepping,
                                                       bool watch_step);
    // The watch slot whose access ended this trap: from DR6, or, emulated, the slot whose bytes the step
    // changed.
    std::optional<size_t> triggered_watch(tracer::Task& task, bool was_stepping);
    // Watchpoint emulation: the watched bytes before `task`'s next step, and the slot whose bytes that
    // step changed.
    void remember_watched_bytes(tracer::Task& task);
    std::optional<size_t> written_watch(tracer::Task& task) const;
    void apply_watchpoints(tracer::Task& task);
    std::vector<WatchRange> armed_watches() const;
    bool watch_armed() const;
    // Arms `watches`, each over as many debug registers as its aligned pieces need; false (nothing armed)
    // when they need more than there are.
    bool set_watch_slots(const std::vector<WatchRange>& watches);
    // Arms the stop at the first syscall of the debugged process at or after replay position `event`.
    void stop_at_syscall_from(uint64_t event);
    bool plant_breakpoint(uint64_t address);
    void plant_one_shot(tracer::Task& task, uint64_t address, bool at_event);
    void unplant_breakpoint(uint64_t address);
    tracer::Task* find_task(const gdbserver::ThreadId& thread);
    // From now on gdb debugs `task`'s process.
    void attach_to(tracer::Task& task);
    // The debugged process, `task`, has just executed a new program.
    void on_new_program(tracer::Task& task);
    // gdb's breakpoints and watchpoints are in place only while the debugged process runs the program gdb
    // knows: a replay from the start runs the programs before it first.
    bool runs_known_program() const { return program_ == known_program_; }
    gdbserver::StopReason exec_stop(tracer::Task& task);
    EngineStop current_stop() const;
    // The debugged process's int3s and watchpoints, inherited by a new process, are taken out of it.
    void forget_breakpoints_in(tracer::Task& task);
    // A thread of another process at one of the debugged process's breakpoints in memory they share.
    tracer::DebugResume step_past_breakpoint(tracer::Task& task, int si_code, bool was_stepping);
    // Runs `work` on the tracer thread; an exception there counts as a failure.
    bool on_tracer(const std::function<void()>& work);

    GuestSession session_;
    std::unique_ptr<DebugBridge> bridge_;
    GuestFileView host_io_;
    std::unique_ptr<ReplayTimeline> timeline_; // null for a live run

    // Set on the tracer thread; read by the server thread only while the guest is stopped.
    gdbserver::StopReason stop_;
    uint64_t stop_pc_ = 0;
    bool stop_at_event_ = false;
    bool stop_at_exit_ = false;
    bool stop_interrupted_ = false;
    bool stop_counted_ = false; // the arrival counter's limit
    bool stop_at_exec_ = false;
    pid_t stop_host_tid_ = 0;
    std::vector<tracer::Task*> stopped_;
    uint64_t event_count_ = 0;
    uint64_t output_shown_until_ = 0; // the furthest replay position reached, over all restarts
    uint64_t stops_since_event_ = 0;  // debugger stops since the last event: the progress of `monitor when`
    pid_t host_pid_ = 0;
    std::string executable_;
    bool detached_ = false;
    std::optional<FollowedProcess> follow_;
    int32_t debugged_pid_ = 0; // the guest pid gdb debugs; 0 until it reached its first stop

    // Set by the server thread before it resumes the guest; read on the tracer thread.
    Motion motion_ = Motion::Continue;

    // Used on the tracer thread only (and by the server thread while the guest is stopped).
    Replayer* replayer_ = nullptr;
    tracer::Session* guest_session_ = nullptr;
    std::optional<Diversion> diversion_;
    std::unique_ptr<ArrivalCounter> arrival_counter_;
    // keep_image(): the image, its thread, and the events of the run when it was taken.
    std::optional<ProcessImage> image_;
    pid_t image_host_tid_ = 0;
    uint64_t image_events_ = 0;
    uint64_t events_in_run_ = 0;
    ThreadLocalAddresses thread_local_addresses_;
    gdbserver::StopReason diverted_from_; // the replay's stop the diversion began at
    std::optional<uint64_t> armed_event_;
    bool event_stop_deferred_ = false; // the armed event's syscall was another process's
    // An internal breakpoint removed when hit: the program's entry point, or the return from the
    // syscall of an armed event.
    struct OneShot {
        uint64_t address;
        uint8_t original;
        bool at_event;
    };
    std::optional<OneShot> one_shot_;
    std::map<uint64_t, uint8_t> breakpoints_; // address -> original byte
    std::set<uint64_t> waiting_breakpoints_;  // gdb's, until the debugged process runs the known program
    bool report_execs_ = false;               // gdb takes exec events (set by the server thread)
    uint32_t program_ = 0;       // execs of the debugged process since its first stop, in this run
    uint32_t known_program_ = 0; // the program_ gdb knows (the last exec reported to it)
    std::vector<WatchRange> requested_watches_; // gdb's, as asked
    // The debug registers: a naturally aligned piece of one of requested_watches_ each.
    std::array<std::optional<WatchRange>, kDebugRegisterSlots> watches_;
    std::array<size_t, kDebugRegisterSlots> watch_owners_{}; // slot -> index in requested_watches_
    uint64_t watch_generation_ = 0;
    std::map<pid_t, uint64_t> applied_generation_; // host tid -> watch_generation_ in its registers
    std::set<pid_t> stepping_;                     // host tids resumed for one instruction
    // Where watched writes never trap (host_delivers_watchpoint_traps), the debugged process single-steps
    // while a write watch is armed, and a step that changed watched bytes is the watchpoint's stop.
    bool emulate_watches_ = false;
    using WatchedBytes = std::array<uint64_t, kDebugRegisterSlots>;
    std::map<pid_t, WatchedBytes> watched_before_step_; // host tid -> watched bytes before its step
    std::set<pid_t> watch_steps_;                       // host tids stepped only for the emulation
    std::set<pid_t> processes_seen_;          // host pids of other processes, after their first resume
    std::map<pid_t, uint64_t> stepping_past_; // host tid of another process -> breakpoint it steps over
};

} // namespace hermit::replay
