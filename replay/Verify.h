#pragma once
// `hermit run --verify`: runs the guest twice under the same RunConfig and checks that both runs are the
// same run: exit status, stdout, stderr and the whole event sequence (formats/ScheduleDiff). The guest's
// output is captured and printed once at the end, from the first run.

#include "formats/Recording.h"

#include <string>
#include <vector>

namespace hermit::replay {

struct VerifyOptions {
    std::vector<std::string> argv;
    RunConfig config;
    std::string json_path; // --verify-json: where to write the comparison; empty: nowhere
};

// Prints "verify: identical (N events)" on stderr and returns the guest's exit status, or throws
// hermit::Error(VerifyDiverged) (exit 5) naming the first difference. Both runs read the same stdin (it is
// read once, up front, unless it is a terminal).
int verify_run(const VerifyOptions& options);

} // namespace hermit::replay
