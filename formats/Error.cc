#include "Error.h"

#include <array>
#include <cstdio>

namespace hermit {

namespace {
constexpr std::array kCatalog = {
#define HERMIT_ERROR(code, name, exit_status, text) ErrorInfo{#code, #name, exit_status, text},
#include "ErrorCatalog.def"
#undef HERMIT_ERROR
};
} // namespace

const ErrorInfo& error_info(ErrorCode code) {
    return kCatalog[static_cast<size_t>(code)];
}

std::span<const ErrorInfo> all_errors() {
    return kCatalog;
}

int report(const Error& error) {
    std::fprintf(stderr, "%s\n", error.what());
    return error.exit_status();
}

Error Error::with_note(const std::string& note) const {
    return Error(Rendered{}, code_, std::string(what()) + "; " + note);
}

std::string Error::render(ErrorCode code, const std::string& message) {
    return fmt::format("hermit: error[{}]: {}", error_info(code).code, message);
}

} // namespace hermit
