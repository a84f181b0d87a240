#include "ReplayRun.h"

#include "RecordedSchedulePolicy.h"
#include "RecordedSyscalls.h"
#include "Replayer.h"
#include "SystemFiles.h"
#include "formats/Error.h"
#include "formats/FileIo.h"
#include "formats/RecordingStore.h"
#include "tracer/GuestRun.h"
#include "tracer/virt/HostProbe.h"

#include <fcntl.h>
#include <fmt/ranges.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace hermit::replay {

namespace {

// What differs between the host of the recording and this one, as a sentence for a divergence: what
// probably made the replay take another way (empty when nothing does).
std::string probable_causes(const RecordingMeta& meta) {
    const HostFacts now = tracer::virt::probe_host();
    std::vector<std::string> causes;
    if (meta.host.kernel_release != now.kernel_release || meta.host.cpu_count != now.cpu_count) {
        causes.push_back(
            fmt::format("it was recorded on another host (Linux {}, {} CPUs; this is Linux {}, {} "
                        "CPUs)",
                        meta.host.kernel_release, meta.host.cpu_count, now.kernel_release, now.cpu_count));
        if (!meta.host.cpuid_faulting || !now.cpuid_faulting) {
            causes.push_back(
                "without CPUID faulting the guest sees each host's own CPU, and code that chooses "
                "by CPU features (libc's string functions, JITs) can take another way");
        }
    }
    if (meta.hermit_version != HERMIT_VERSION) {
        causes.push_back(fmt::format("it was recorded by hermit {} and this is hermit {}",
                                     meta.hermit_version, HERMIT_VERSION));
    }
    return causes.empty() ? std::string()
                          : "what probably differs: " + fmt::format("{}", fmt::join(causes, "; "));
}

} // namespace

int replay_once(const RecordingReader& reader, ReplayLog& log,
                const std::function<void(tracer::GuestRun&, Replayer&)>& attach) {
    const RecordingMeta& meta = reader.meta();
    tracer::GuestRunSpec spec{meta.argv, meta.env, meta.cwd, meta.config, meta.inherited_descriptors};
    spec.replaying = true;
    if (meta.config.namespaces) {
        BlobStore blobs = blobs_of_recording(reader.directory());
        spec.overlays = changed_system_files(meta, blobs);
    }
    UniqueFd stdin_copy;
    for (const RecordedFile& file : meta.files) {
        if (file.path == RecordingMeta::kStdinCopy) {
            // A file without a name, gone with its last descriptor; the guest gets it read-only, as the
            // recorded stdin was opened.
            const auto directory = std::filesystem::temp_directory_path();
            const UniqueFd written(open(directory.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600));
            if (written.get() >= 0) {
                reader.write_file_copy(file, written.get());
                stdin_copy = UniqueFd(
                    open(("/proc/self/fd/" + std::to_string(written.get())).c_str(), O_RDONLY | O_CLOEXEC));
            }
            if (stdin_copy.get() < 0) {
                throw Error(ErrorCode::ReplayUnsupported, meta.id,
                            fmt::format("cannot create a file in {} for the recorded stdin: {}",
                                        directory.string(), std::strerror(errno)));
            }
            spec.stdin_file = stdin_copy.get();
            spec.stdin_offset = meta.stdin_offset;
        }
    }
    for (int fd : {1, 2}) {
        // Not trapped when recorded: /dev/null (or, recorded by an older hermit, a regular file).
        if (std::find(meta.trapped_descriptors.begin(), meta.trapped_descriptors.end(), fd) ==
            meta.trapped_descriptors.end()) {
            spec.null_outputs.push_back(fd);
        }
    }
    tracer::GuestRun run(spec);
    tracer::DescriptorTraps descriptor_traps = recorded_descriptor_traps(meta);
    run.add_interceptor(&descriptor_traps);
    run.add_event_sink(&descriptor_traps);
    Replayer replayer(reader, log, {&run.virtualizer()});
    run.add_interceptor(&replayer);
    run.add_event_sink(&replayer);
    run.set_schedule_policy(std::make_unique<RecordedSchedulePolicy>(log));
    if (attach) {
        attach(run, replayer);
    }
    try {
        const int exit_status = run.run();
        if (const int signal_number = run.session().terminated_by(); signal_number != 0) {
            spdlog::info("replay of {} stopped by signal {}", meta.id, signal_number);
            return 128 + signal_number; // cut short on purpose: nothing to compare
        }
        replayer.check_finished(meta.exit_status, exit_status);
        return exit_status;
    } catch (const Error& error) {
        const std::string causes = error.code() == ErrorCode::ReplayDesync ? probable_causes(meta) : "";
        if (causes.empty()) {
            throw;
        }
        throw error.with_note(causes);
    }
}

int replay_autopilot(const std::string& id_or_path) {
    RecordingStore store;
    RecordingReader reader(store.resolve(id_or_path));
    const RecordingMeta& meta = reader.meta();
    ReplayLog log(reader.read_all(), meta.finished);
    if (!meta.finished) {
        spdlog::warn("{} is unfinished (hermit was stopped while recording it): the replay ends after its {} "
                     "recorded events",
                     meta.id, log.size());
    }
    spdlog::info("replaying {} ({} events)", meta.id, log.size());
    return replay_once(reader, log);
}

} // namespace hermit::replay
