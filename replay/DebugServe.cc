#include "DebugServe.h"

#include "ReplayLog.h"
#include "ReplayRun.h"
#include "Replayer.h"
#include "formats/Error.h"
#include "formats/FileIo.h"
#include "formats/RecordingStore.h"
#include "gdbserver/Connection.h"
#include "gdbserver/GdbServer.h"
#include "gdbserver/Transport.h"
#include "tracer/ExecutableResolver.h"
#include "tracer/ScratchDirectory.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>

namespace hermit::replay {

namespace {

bool gdb_in_path() {
    const char* path = std::getenv("PATH");
    std::stringstream directories(path == nullptr ? "/usr/bin:/bin" : path);
    std::string directory;
    while (std::getline(directories, directory, ':')) {
        if (!directory.empty() && access((directory + "/gdb").c_str(), X_OK) == 0) {
            return true;
        }
    }
    return false;
}

// SIGINT, SIGTERM and SIGHUP end a debugging session at any time, whatever the server waits for: they are
// blocked in every thread (the tracer thread inherits the mask) and read from a signalfd whose readability
// cancels the server's waits for gdb (gdbserver/Transport.h). The Session leaves them to the server.
class TerminationSignals {
public:
    TerminationSignals() {
        sigset_t signals;
        sigemptyset(&signals);
        for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
            sigaddset(&signals, signal_number);
        }
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);
        descriptor_ = UniqueFd(signalfd(-1, &signals, SFD_CLOEXEC | SFD_NONBLOCK));
    }
    int descriptor() const { return descriptor_.get(); }
    // The signal that came (taking it), 0 if none.
    int received() {
        signalfd_siginfo info{};
        return read(descriptor_.get(), &info, sizeof info) == sizeof info ? static_cast<int>(info.ssi_signo)
                                                                          : 0;
    }

private:
    UniqueFd descriptor_;
};

// gdb's own checkpoint and restart fork the debugged process, which a replay cannot do: for the gdb hermit
// starts they are the replay's (monitor checkpoint, monitor restart N), and gdb forgets what it read
// before a restart. Returns the script's path, empty when it could not be written.
std::string write_checkpoint_commands(const std::filesystem::path& directory) {
    const std::filesystem::path script = directory / "checkpoints.gdb";
    std::ofstream out(script);
    out << "set confirm off\n"
           "define checkpoint\n  monitor checkpoint\nend\n"
           "document checkpoint\nRemember this position of the replay (hermit's monitor checkpoint).\nend\n"
           "define restart\n  monitor restart $arg0\n  maintenance flush register-cache\n"
           "  maintenance flush dcache\nend\n"
           "document restart\nGo back (or forward) to checkpoint N of the replay (hermit's monitor restart "
           "N).\n"
           "end\n"
           "set confirm on\n";
    return out ? script.string() : std::string();
}

// Becomes gdb connected to the private socket `address` (this process), leaving hermit to go on in a child
// process that is in its own process group, so that the terminal's Ctrl-C reaches gdb only (gdb forwards
// it). `script`: gdb commands to read first (none when empty). `extended`: extended-remote mode, in which
// gdb's `run` starts a replay over.
void hand_terminal_to_gdb(const std::string& executable, const std::string& address,
                          const std::string& script, bool extended) {
    pid_t child = fork();
    if (child < 0) {
        throw Error(ErrorCode::GdbNotFound);
    }
    if (child == 0) {
        setpgid(0, 0);
        return;
    }
    // gdb must not inherit the termination signals blocked for the server.
    sigset_t none;
    sigemptyset(&none);
    pthread_sigmask(SIG_SETMASK, &none, nullptr);
    std::string connect = (extended ? "target extended-remote " : "target remote ") + address;
    std::vector<const char*> argv{"gdb"};
    if (!executable.empty()) {
        argv.push_back(executable.c_str());
    }
    if (!script.empty()) {
        argv.insert(argv.end(), {"-x", script.c_str()});
    }
    argv.insert(argv.end(), {"-ex", connect.c_str(), nullptr});
    execvp("gdb", const_cast<char* const*>(argv.data()));
    ::kill(child, SIGKILL);
    throw Error(ErrorCode::GdbNotFound);
}

// A program path as the recorded guest named it, made absolute against its working directory.
std::string in_recorded_cwd(const RecordingMeta& meta, const std::string& program) {
    const std::filesystem::path path(program);
    return (path.is_absolute() || meta.cwd.empty() ? path : std::filesystem::path(meta.cwd) / path).string();
}

std::string guest_executable(const RecordingMeta& meta) {
    const std::string& name = meta.argv.empty() ? std::string() : meta.argv.front();
    try {
        return in_recorded_cwd(meta,
                               tracer::resolve_executable(name, tracer::search_path_of(meta.env), meta.cwd));
    } catch (const Error&) {
        return name;
    }
}

// What `-f pid` attaches to, from the recorded events: whether the process execs, and the program gdb
// must load (the one it execs, or the one it was forked from). nullopt: no such process.
std::optional<std::pair<FollowedProcess, std::string>>
followed_process(const std::vector<Event>& events, int32_t pid, const RecordingMeta& meta) {
    std::map<int32_t, int32_t> process_of_thread;
    std::map<int32_t, std::string> program_of_process;
    for (const Event& event : events) {
        process_of_thread[event.tid] = event.pid;
        const auto* start = std::get_if<ThreadStartEvent>(&event.payload);
        if (start != nullptr && start->new_process) {
            auto parent = process_of_thread.find(start->parent_tid);
            program_of_process[event.pid] = parent == process_of_thread.end()
                                                ? guest_executable(meta)
                                                : program_of_process[parent->second];
            if (event.pid == pid) {
                break;
            }
        }
    }
    if (!process_of_thread.contains(pid)) {
        return std::nullopt;
    }
    for (const Event& event : events) {
        const auto* exec = std::get_if<ExecEvent>(&event.payload);
        if (exec != nullptr && event.pid == pid) {
            return std::pair{FollowedProcess{pid, true}, in_recorded_cwd(meta, exec->path)};
        }
    }
    return std::pair{FollowedProcess{pid, false}, program_of_process[pid]};
}

} // namespace

int serve_debugger(DebugTarget::GuestSession session, const DebugServeOptions& options) {
    if (!options.serve_only && !gdb_in_path()) {
        throw Error(ErrorCode::GdbNotFound);
    }
    TerminationSignals termination;
    // gdb started by hermit connects through a Unix domain socket in a directory only this user can enter;
    // --serve-only listens on loopback TCP, which any local user can reach (docs/USER_GUIDE.md).
    std::optional<tracer::ScratchDirectory> private_directory;
    std::optional<gdbserver::Listener> listener;
    if (options.serve_only) {
        try {
            listener.emplace(gdbserver::Listener::listen_loopback(static_cast<uint16_t>(options.port)));
        } catch (const gdbserver::TransportError& error) {
            throw Error(ErrorCode::GdbserverBind, error.port(), error.reason());
        }
        std::fprintf(stderr, "hermit: gdbserver listening; connect with: gdb %s -ex 'target remote :%u'\n",
                     options.executable.c_str(), static_cast<unsigned>(listener->port()));
        std::fflush(stderr);
    } else {
        private_directory.emplace("gdb");
        if (private_directory->path().empty()) {
            throw Error(ErrorCode::GdbChannel, std::strerror(errno));
        }
        const std::string address = (private_directory->path() / "socket").string();
        try {
            listener.emplace(gdbserver::Listener::listen_local(address));
        } catch (const gdbserver::TransportError& error) {
            throw Error(ErrorCode::GdbChannel, error.reason());
        }
        hand_terminal_to_gdb(options.executable, address,
                             options.reversible ? write_checkpoint_commands(private_directory->path()) : "",
                             options.reversible);
    }

    DebugTarget target(std::move(session), options.reversible, options.follow);
    if (!target.start()) {
        spdlog::warn("the guest ended before reaching its entry point; nothing to debug");
        return target.finish().value_or(0);
    }
    if (options.goto_event > 0) {
        target.go_to_event(options.goto_event);
    }
    if (std::optional<gdbserver::Socket> socket = listener->accept(termination.descriptor())) {
        gdbserver::Connection connection(std::move(*socket));
        if (gdbserver::GdbServer(target, connection).serve() == gdbserver::GdbServer::Outcome::Disconnected) {
            target.kill();
        }
    } else {
        target.kill();
    }
    const std::optional<int> status = target.finish();
    if (const int signal_number = termination.received(); signal_number != 0) {
        spdlog::info("ended by signal {}", signal_number);
        return 128 + signal_number;
    }
    return status.value_or(0);
}

int debug_replay(const DebugReplayOptions& options) {
    RecordingStore store;
    RecordingReader reader(store.resolve(options.recording));
    const RecordingMeta& meta = reader.meta();
    if (!meta.finished) {
        throw Error(ErrorCode::ReplayUnsupported, meta.id,
                    "it is unfinished (the recording run did not end normally)");
    }
    const std::vector<Event> events = reader.read_all();
    spdlog::info("replaying {} ({} events) under gdb", meta.id, events.size());

    if (options.goto_event >= events.size()) {
        throw Error(ErrorCode::UsageError, "--goto-event=" + std::to_string(options.goto_event) +
                                               " is past the last event of " + meta.id + " (" +
                                               std::to_string(events.size()) + " events)");
    }
    auto replay = [&](const DebugTarget::Attach& attach) {
        ReplayLog log(events);
        return replay_once(reader, log,
                           [&](tracer::GuestRun& run, Replayer& replayer) { attach(run, &replayer); });
    };
    DebugServeOptions serve{options.serve_only, options.port, guest_executable(meta), true,
                            options.goto_event, std::nullopt};
    if (options.follow_pid) {
        auto followed = followed_process(events, *options.follow_pid, meta);
        if (!followed) {
            throw Error(ErrorCode::FollowUnknownProcess, *options.follow_pid, meta.id);
        }
        serve.follow = followed->first;
        serve.executable = followed->second;
    }
    return serve_debugger(replay, serve);
}

int debug_run(const tracer::GuestRunSpec& spec, bool serve_only, int port) {
    const std::string executable =
        tracer::resolve_executable(spec.argv.at(0), tracer::search_path_of(spec.env), spec.cwd);
    auto live = [&spec](const DebugTarget::Attach& attach) {
        tracer::GuestRun run(spec);
        attach(run, nullptr);
        return run.run();
    };
    return serve_debugger(live, DebugServeOptions{serve_only, port, executable, false, 0, std::nullopt});
}

} // namespace hermit::replay
