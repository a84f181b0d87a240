#include "Logging.h"

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>

namespace hermit {

void log_to_stderr(const std::string& level) {
    if (spdlog::get("hermit") == nullptr) {
        spdlog::set_default_logger(spdlog::stderr_logger_st("hermit"));
    }
    spdlog::set_level(spdlog::level::from_str(level));
    spdlog::set_pattern("hermit: [%l] %v");
}

} // namespace hermit
