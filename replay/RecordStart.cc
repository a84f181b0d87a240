// `hermit record start`: one deterministic run of the guest with the Recorder in front of the Virtualizer.

#include "GuestEnvironment.h"
#include "RecordedSyscalls.h"
#include "Recorder.h"
#include "SystemFiles.h"
#include "formats/Error.h"
#include "formats/RecordingStore.h"
#include "tracer/GuestRun.h"
#include "tracer/InheritedDescriptors.h"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>

namespace hermit::replay {

namespace {

int64_t unix_time_ms() {
    using namespace std::chrono;
    return duration_cast<milliseconds>(system_clock::now().time_since_epoch()).count();
}

// Errors that mean the guest never started: the directory holds nothing worth keeping.
bool guest_never_started(const Error& error) {
    return error.code() == ErrorCode::GuestNotFound || error.code() == ErrorCode::GuestNotExecutable ||
           error.code() == ErrorCode::GuestNotRunnable || error.code() == ErrorCode::MissingCommand;
}

std::vector<SystemFile> kept_system_files(SystemFileWatch& watch, const RecordingStore& store) {
    BlobStore blobs(store.blobs_directory());
    try {
        return watch.keep_opened(blobs);
    } catch (const Error& error) {
        spdlog::warn("the recording does not hold the system files the guest opened: {}", error.what());
        return {};
    }
}

} // namespace

int record_start(const RecordOptions& options) {
    if (options.argv.empty()) {
        throw Error(ErrorCode::MissingCommand);
    }
    if (!options.config.namespaces) {
        // Without its own pid namespace the guest's process and thread ids are the host's, other ones
        // in every run: no replay could match them.
        throw Error(ErrorCode::UsageError,
                    "--no-namespaces cannot be recorded: a replay needs the guest's own "
                    "pid namespace, where its process and thread ids are the same every time");
    }
    // Termination signals stay blocked for good: while the guest runs the Session passes them on, and one
    // that comes after (GNU timeout's second) must not kill hermit before the recording is finished.
    sigset_t termination;
    sigemptyset(&termination);
    for (int signal_number : {SIGINT, SIGTERM, SIGHUP}) {
        sigaddset(&termination, signal_number);
    }
    sigprocmask(SIG_BLOCK, &termination, nullptr);
    tracer::GuestRunSpec spec{options.argv, recorded_environment(), current_directory(), options.config};
    SystemFileWatch system_files;
    spec.own_mounts = SystemFileWatch::own_mounts();
    spec.before_exec = [&system_files](pid_t guest) { system_files.watch(guest); };
    tracer::GuestRun run(spec);

    RecordingStore store;
    std::string id;
    const std::filesystem::path directory =
        store.allocate(options.name.empty() ? options.argv.front() : options.name, id);
    RecordingMeta meta;
    meta.id = id;
    meta.name = options.name;
    meta.argv = spec.argv;
    meta.env = spec.env;
    meta.cwd = spec.cwd;
    meta.hermit_version = HERMIT_VERSION;
    meta.started_at_unix_ms = unix_time_ms();
    meta.config = options.config;
    meta.host = run.virtualizer().host_facts();
    meta.inherited_descriptors = tracer::inheritable_descriptors();
    meta.trapped_descriptors = initially_trapped_descriptors(meta.inherited_descriptors);
    struct stat standard_input {};
    const bool regular_stdin = fstat(0, &standard_input) == 0 && S_ISREG(standard_input.st_mode);
    if (regular_stdin) {
        meta.stdin_offset = static_cast<uint64_t>(std::max<off_t>(lseek(0, 0, SEEK_CUR), 0));
    }

    int exit_status = 0;
    uint64_t event_count = 0;
    try {
        // The writer's thread writes into the directory until the writer is gone.
        RecordingWriter writer(directory, meta);
        // Now, not at the end: a recording hermit is stopped in (killed) is the one to replay next.
        store.mark_latest(id);
        if (regular_stdin) {
            // Read natively like the guest's other files, from a copy on replay.
            writer.add_file(RecordingMeta::kStdinCopy, "/proc/self/fd/0");
        }
        tracer::DescriptorTraps descriptor_traps = recorded_descriptor_traps(meta);
        run.add_interceptor(&descriptor_traps);
        run.add_event_sink(&descriptor_traps);
        Recorder recorder(writer);
        run.add_interceptor(&recorder);
        run.add_event_sink(&recorder);
        exit_status = run.run();
        writer.set_system_files(kept_system_files(system_files, store));
        writer.finish(exit_status, recorder.last_event_time());
        event_count = writer.event_count();
    } catch (const Error& error) {
        if (guest_never_started(error)) {
            store.remove(id); // and `latest` goes back to the newest other one
        }
        throw;
    }
    std::fprintf(stderr, "hermit: recorded %s (%llu events) in %s\n", id.c_str(),
                 static_cast<unsigned long long>(event_count), directory.c_str());
    return exit_status;
}

} // namespace hermit::replay
