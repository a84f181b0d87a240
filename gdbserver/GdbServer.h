#pragma once
// GdbServer: what gdb's requests mean for a Target. It reads request payloads from a Connection,
// answers each one, and runs the target when gdb resumes it. It keeps the per-session protocol state
// (negotiated features, the threads gdb selected with Hg/Hc); the target keeps everything about the
// debuggee. Packets of capabilities the target lacks get the empty reply, and qSupported offers only
// the capabilities the target has.

#include "Connection.h"
#include "Target.h"

#include <optional>
#include <set>
#include <string>
#include <string_view>

namespace hermit::gdbserver {

class GdbServer {
public:
    enum class Outcome { Detached, Killed, Disconnected };

    GdbServer(Target& target, Connection& connection);

    // Serves requests until gdb detaches, kills the target or disconnects.
    Outcome serve();

private:
    // The reply to one request; nullopt when it was already sent or there is none (k).
    std::optional<std::string> handle(std::string_view request);

    std::string handle_query(std::string_view request);
    std::string handle_supported(std::string_view features);
    std::string handle_set_thread(std::string_view request);
    std::string handle_thread_alive(std::string_view request);
    std::string handle_thread_list();
    std::string handle_read_registers();
    std::string handle_write_registers(std::string_view hex);
    std::string handle_read_register(std::string_view request);
    std::string handle_write_register(std::string_view request);
    std::string handle_read_memory(std::string_view request);
    std::string handle_write_memory(std::string_view request, bool binary);
    std::string handle_legacy_resume(std::string_view request);
    std::string handle_vcont(std::string_view actions);
    std::string handle_reverse(ResumeKind kind);
    std::string handle_breakpoint(std::string_view request, bool insert);
    std::string handle_monitor(std::string_view hex_command);
    std::string handle_thread_local_address(std::string_view arguments);
    std::string handle_xfer(std::string_view request);
    std::string handle_host_io(std::string_view request);
    std::string handle_detach();
    std::string handle_kill();
    std::string handle_run();

    std::string resume(const ResumeRequest& request);
    std::string stop_reply(const StopReason& stop);
    // The first live thread matching `pattern`, or nullopt.
    std::optional<ThreadId> find_thread(const ThreadId& pattern);
    // The thread register and memory requests apply to (Hg), falling back to the first thread.
    std::optional<ThreadId> general_thread();
    std::string format_thread(const ThreadId& thread) const;
    bool gdb_offered(std::string_view feature) const { return gdb_features_.contains(std::string(feature)); }

    Target& target_;
    Connection& connection_;
    std::set<std::string> gdb_features_;
    bool multiprocess_ = false;
    bool extended_ = false; // gdb asked for extended-remote mode (`!`)
    ThreadId general_thread_{ThreadId::kAny, ThreadId::kAny};
    ThreadId continue_thread_{ThreadId::kAll, ThreadId::kAll};
    std::optional<Outcome> outcome_;
};

} // namespace hermit::gdbserver
