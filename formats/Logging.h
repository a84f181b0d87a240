#pragma once
// hermit's diagnostics go to stderr as "hermit: [level] text", so a guest's stdout stays byte-identical.
// spdlog is used from its headers: hermit and its GUI module (a shared object) each hold their own copy,
// and each sets it up with this.

#include <string>

namespace hermit {

// `level`: error, warn, info, debug or trace.
void log_to_stderr(const std::string& level);

} // namespace hermit
