#pragma once
// Export of a recording as Chrome trace-event JSON, which Perfetto (ui.perfetto.dev) and chrome://tracing
// open. Layout: one pid per guest process, one tid track per guest thread (named by thread_name metadata),
// a complete event ("X") for each time slice a thread held the run token (from its Schedule event to the
// next one), and instant events ("i") for syscalls, signals, execs, thread starts and exits, rdtsc, cpuid
// and guest output. Timestamps are the guest's logical time in microseconds.

#include "EventDescription.h"
#include "Recording.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <vector>

namespace hermit {

nlohmann::json perfetto_trace(const RecordingMeta& meta, const std::vector<Event>& events,
                              const SyscallNameLookup& names = {});

// Writes the JSON to `output` ("-" for stdout). Throws E081.
void write_perfetto_trace(const nlohmann::json& trace, const std::filesystem::path& output);

} // namespace hermit
