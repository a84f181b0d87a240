#pragma once
// `hermit replay --autopilot`: re-executes a recording from start to end under the same GuestRun recipe it
// was recorded with (argv, environment, cwd, RunConfig), with the Replayer in front of the Virtualizer and
// the RecordedSchedulePolicy, and checks that the guest does exactly what it did.

#include "ReplayLog.h"
#include "Replayer.h"
#include "formats/Recording.h"
#include "tracer/GuestRun.h"

#include <functional>
#include <string>

namespace hermit::replay {

// `id_or_path`: a recording id, "latest" or a recording directory. Returns the replayed guest's exit
// status (equal to the recorded one). Throws hermit::Error: E030/E035 (no such recording), E031-E034
// (damaged recording), E040 (the replay diverged), E041 (the recording cannot be replayed).
int replay_autopilot(const std::string& id_or_path);

// One replay of `reader`'s recording along `log`: the guest started as recorded (argv, environment, cwd,
// RunConfig, stand-ins for the descriptors it inherited), the recording's DescriptorTraps, the Replayer
// and the RecordedSchedulePolicy; `attach` adds what else watches it (a debugger) before it runs. Returns
// the exit status, checked against the recorded one.
int replay_once(const RecordingReader& reader, ReplayLog& log,
                const std::function<void(tracer::GuestRun&, Replayer&)>& attach = {});

} // namespace hermit::replay
