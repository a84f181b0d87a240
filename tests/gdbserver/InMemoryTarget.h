#pragma once
// InMemoryTarget: a tiny debuggee for the gdbserver tests whose memory and registers are plain arrays.
// Its "instructions" are one byte long: stepping moves rip forward by one, continuing steps until rip
// reaches a breakpoint, the exit address (exit with status rax & 0xff), or gdb interrupts. Reverse
// execution moves rip backwards and stops at a breakpoint or at the start of memory (no history).
// Capabilities are switched on per test to check that the server advertises only what exists.

#include "gdbserver/Amd64Registers.h"
#include "gdbserver/LocalFileHostIo.h"
#include "gdbserver/Target.h"

#include <array>
#include <chrono>
#include <condition_variable>
#include <csignal>
#include <cstring>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <vector>

namespace hermit::gdbserver::testing {

class InMemoryTarget : public Target,
                       public Breakpoints,
                       public Watchpoints,
                       public ReverseExecution,
                       public Auxv,
                       public ExecFile,
                       public Libraries,
                       public MonitorCommands,
                       public Processes {
public:
    static constexpr uint64_t kMemoryBase = 0x1000;
    static constexpr size_t kMemorySize = 0x1000;
    static constexpr int64_t kPid = 1;

    struct Capabilities {
        bool breakpoints = false;
        bool watchpoints = false;
        bool reverse = false;
        bool auxv = false;
        bool exec_file = false;
        bool host_io = false;
        bool monitor = false;
        bool processes = false;
        bool libraries = false;
    };

    explicit InMemoryTarget(Capabilities capabilities) : capabilities_(capabilities) {
        for (size_t i = 0; i < kMemorySize; ++i) {
            memory_[i] = static_cast<uint8_t>(i * 7 + 0x48);
        }
        for (int64_t tid : {1, 2}) {
            std::vector<uint8_t> registers(amd64::register_file_size());
            registers_[tid] = registers;
            set_register(tid, amd64::kRip, kMemoryBase + 0x10 * static_cast<uint64_t>(tid));
            set_register(tid, amd64::kRsp, 0x7ffff000 + static_cast<uint64_t>(tid));
            set_register(tid, amd64::kRax, 0x1122334455667788ULL + static_cast<uint64_t>(tid));
        }
    }

    uint64_t get_register(int64_t tid, int regno) const {
        uint64_t value = 0;
        const auto& info = amd64::registers()[static_cast<size_t>(regno)];
        std::memcpy(&value, registers_.at(tid).data() + info.offset, std::min<size_t>(info.size, 8));
        return value;
    }
    void set_register(int64_t tid, int regno, uint64_t value) {
        const auto& info = amd64::registers()[static_cast<size_t>(regno)];
        std::memcpy(registers_.at(tid).data() + info.offset, &value, std::min<size_t>(info.size, 8));
    }
    const uint8_t* memory() const { return memory_.data(); }

    void set_exit_address(uint64_t address) { exit_address_ = address; }
    bool killed() const { return killed_; }
    bool detached() const { return detached_; }
    const std::set<uint64_t>& breakpoint_addresses() const { return breakpoints_; }
    const std::vector<ResumeRequest>& resumes() const { return resumes_; }
    // Blocks until some thread runs forward (continue), for tests that interrupt a running target;
    // false if that does not happen within a generous bound.
    bool wait_until_running() {
        std::unique_lock lock(running_mutex_);
        return running_changed_.wait_for(lock, std::chrono::seconds(30), [this] { return running_; });
    }

    // Target
    std::vector<ThreadId> threads() override { return {{kPid, 1}, {kPid, 2}}; }
    StopReason stop_reason() override { return {StopReason::Kind::Signal, {kPid, 1}, SIGTRAP}; }
    std::string thread_extra_info(const ThreadId& thread) override {
        return thread.tid == 1 ? "main" : "worker";
    }
    std::vector<uint8_t> read_registers(const ThreadId& thread) override {
        auto found = registers_.find(thread.tid);
        return found == registers_.end() ? std::vector<uint8_t>() : found->second;
    }
    bool write_registers(const ThreadId& thread, std::span<const uint8_t> bytes) override {
        auto found = registers_.find(thread.tid);
        if (found == registers_.end() || bytes.size() != found->second.size()) {
            return false;
        }
        found->second.assign(bytes.begin(), bytes.end());
        return true;
    }
    size_t read_memory(uint64_t address, std::span<uint8_t> out) override {
        if (address < kMemoryBase || address >= kMemoryBase + kMemorySize) {
            return 0;
        }
        size_t count = std::min<size_t>(out.size(), kMemoryBase + kMemorySize - address);
        std::memcpy(out.data(), memory_.data() + (address - kMemoryBase), count);
        return count;
    }
    bool write_memory(uint64_t address, std::span<const uint8_t> bytes) override {
        if (address < kMemoryBase || address + bytes.size() > kMemoryBase + kMemorySize) {
            return false;
        }
        std::memcpy(memory_.data() + (address - kMemoryBase), bytes.data(), bytes.size());
        return true;
    }
    StopReason resume(const ResumeRequest& request, const InterruptCheck& interrupted) override {
        resumes_.push_back(request);
        // One CPU, no preemption: a stepping thread finishes its step first; otherwise the first thread
        // told to continue runs until it stops.
        for (const ThreadId& thread : threads()) {
            const ThreadResume* action = request.action_for(thread);
            if (action && action->kind == ResumeKind::Step) {
                set_register(thread.tid, amd64::kRip, get_register(thread.tid, amd64::kRip) + 1);
                return {StopReason::Kind::Signal, thread, SIGTRAP};
            }
        }
        for (const ThreadId& thread : threads()) {
            if (request.action_for(thread)) {
                return run_forward(thread, interrupted);
            }
        }
        return {StopReason::Kind::Signal, {kPid, 1}, SIGTRAP};
    }
    void kill() override { killed_ = true; }
    void detach() override { detached_ = true; }

    Breakpoints* breakpoints() override { return capabilities_.breakpoints ? this : nullptr; }
    Watchpoints* watchpoints() override { return capabilities_.watchpoints ? this : nullptr; }
    ReverseExecution* reverse() override { return capabilities_.reverse ? this : nullptr; }
    Auxv* auxv() override { return capabilities_.auxv ? this : nullptr; }
    ExecFile* exec_file() override { return capabilities_.exec_file ? this : nullptr; }
    Libraries* libraries() override { return capabilities_.libraries ? this : nullptr; }
    HostIo* host_io() override { return capabilities_.host_io ? &host_files_ : nullptr; }
    MonitorCommands* monitor() override { return capabilities_.monitor ? this : nullptr; }
    Processes* processes() override { return capabilities_.processes ? this : nullptr; }

    // Breakpoints
    bool insert_breakpoint(BreakpointKind, uint64_t address, int) override {
        breakpoints_.insert(address);
        return true;
    }
    bool remove_breakpoint(BreakpointKind, uint64_t address, int) override {
        return breakpoints_.erase(address) == 1;
    }

    // Watchpoints: a write watch on an address triggers when rip passes it (enough to test reporting).
    bool insert_watchpoint(WatchKind kind, uint64_t address, uint64_t) override {
        watchpoints_[address] = kind;
        return true;
    }
    bool remove_watchpoint(WatchKind, uint64_t address, uint64_t) override {
        return watchpoints_.erase(address) == 1;
    }

    // ReverseExecution
    StopReason reverse_resume(ResumeKind kind, const ThreadId& thread,
                              const InterruptCheck& interrupted) override {
        for (;;) {
            uint64_t rip = get_register(thread.tid, amd64::kRip);
            if (rip <= kMemoryBase) {
                return {StopReason::Kind::NoHistory,  thread, 0, 0, WatchKind::Write, 0,
                        StopReason::HistoryEnd::Begin};
            }
            set_register(thread.tid, amd64::kRip, rip - 1);
            if (kind == ResumeKind::Step) {
                return {StopReason::Kind::Signal, thread, SIGTRAP};
            }
            if (breakpoints_.contains(rip - 1)) {
                return {StopReason::Kind::SoftwareBreakpoint, thread, SIGTRAP};
            }
            if (interrupted()) {
                return {StopReason::Kind::Signal, thread, SIGINT};
            }
        }
    }

    // Auxv, ExecFile, MonitorCommands, Processes
    std::vector<uint8_t> read_auxv() override {
        std::vector<uint8_t> bytes(32);
        uint64_t entries[4] = {6 /* AT_PAGESZ */, 4096, 0 /* AT_NULL */, 0};
        std::memcpy(bytes.data(), entries, sizeof entries);
        return bytes;
    }
    std::string exec_file_path(int64_t) override { return exec_path_; }
    void set_exec_path(std::string path) { exec_path_ = std::move(path); }
    std::string libraries_svr4_xml() override { return R"(<library-list-svr4 version="1.0"/>)"; }
    std::string run_monitor_command(std::string_view command) override {
        return "you said: " + std::string(command) + "\n";
    }
    bool attached(int64_t) override { return false; }

private:
    StopReason run_forward(const ThreadId& thread, const InterruptCheck& interrupted) {
        {
            std::lock_guard lock(running_mutex_);
            running_ = true;
        }
        running_changed_.notify_all();
        for (;;) {
            uint64_t rip = get_register(thread.tid, amd64::kRip) + 1;
            if (rip >= kMemoryBase + kMemorySize) {
                rip = kMemoryBase;
            }
            set_register(thread.tid, amd64::kRip, rip);
            if (exit_address_ && rip == *exit_address_) {
                return {StopReason::Kind::Exited,
                        {kPid, ThreadId::kAll},
                        0,
                        0,
                        WatchKind::Write,
                        static_cast<int>(get_register(thread.tid, amd64::kRax) & 0xff)};
            }
            if (breakpoints_.contains(rip)) {
                return {StopReason::Kind::SoftwareBreakpoint, thread, SIGTRAP};
            }
            if (auto watch = watchpoints_.find(rip); watch != watchpoints_.end()) {
                return {StopReason::Kind::Watchpoint, thread, SIGTRAP, rip, watch->second};
            }
            if (interrupted()) {
                return {StopReason::Kind::Signal, thread, SIGINT};
            }
        }
    }

    Capabilities capabilities_;
    std::array<uint8_t, kMemorySize> memory_{};
    std::map<int64_t, std::vector<uint8_t>> registers_;
    std::set<uint64_t> breakpoints_;
    std::map<uint64_t, WatchKind> watchpoints_;
    std::vector<ResumeRequest> resumes_;
    std::optional<uint64_t> exit_address_;
    std::string exec_path_ = "/bin/true";
    LocalFileHostIo host_files_;
    std::mutex running_mutex_;
    std::condition_variable running_changed_;
    bool running_ = false;
    bool killed_ = false;
    bool detached_ = false;
};

} // namespace hermit::gdbserver::testing
