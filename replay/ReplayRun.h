#pragma once
// `hermit replay --autopilot`: re-executes a recording from start to end under the same GuestRun recipe it
// was recorded with (argv, environment, cwd, RunConfig), with the Replayer in front of the Virtualizer and
// the RecordedSchedulePolicy, and checks that the guest does exactly what it did.

#include "formats/Recording.h"
#include "tracer/GuestRun.h"

#include <string>

namespace hermit::replay {

// `id_or_path`: a recording id, "latest" or a recording directory. Returns the replayed guest's exit
// status (equal to the recorded one). Throws hermit::Error: E030/E035 (no such recording), E031-E034
// (damaged recording), E040 (the replay diverged), E041 (the recording cannot be replayed).
int replay_autopilot(const std::string& id_or_path);

// How a replay starts the guest: as recorded (argv, environment, cwd, RunConfig), with stand-ins for the
// descriptors it inherited.
tracer::GuestRunSpec replay_spec(const RecordingMeta& meta);

} // namespace hermit::replay
