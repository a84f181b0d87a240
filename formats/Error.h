#pragma once
// hermit::Error: the one exception type for user-facing failures. Each carries a stable code from
// ErrorCatalog.def, the process exit status that code maps to, and a message a user can act on.

#include <fmt/format.h>

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace hermit {

enum class ErrorCode {
#define HERMIT_ERROR(code, name, exit_status, text) name,
#include "ErrorCatalog.def"
#undef HERMIT_ERROR
};

struct ErrorInfo {
    std::string_view code; // "E031"
    std::string_view name; // "RecordingCorrupt"
    int exit_status;
    std::string_view message_template;
};

// Catalog row for a code.
const ErrorInfo& error_info(ErrorCode code);
// Every row, in catalog order (used by the catalog test and `hermit --list-errors`).
std::span<const ErrorInfo> all_errors();

class Error : public std::runtime_error {
public:
    template <typename... Args>
    Error(ErrorCode code, Args&&... args)
        : std::runtime_error(
              render(code, fmt::vformat(error_info(code).message_template, fmt::make_format_args(args...)))),
          code_(code) {}

    ErrorCode code() const { return code_; }
    int exit_status() const { return error_info(code_).exit_status; }
    // The same error, its message followed by `note` (what the catcher knows of its probable cause).
    Error with_note(const std::string& note) const;

private:
    struct Rendered {};
    Error(Rendered, ErrorCode code, const std::string& text) : std::runtime_error(text), code_(code) {}
    static std::string render(ErrorCode code, const std::string& message);
    ErrorCode code_;
};

// Prints the error to stderr as hermit's main does and returns its exit status.
int report(const Error& error);

} // namespace hermit
