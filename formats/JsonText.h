#pragma once
// JSON text of a document that may hold any bytes the guest had: environment values, paths and output
// are not always UTF-8, and nlohmann::json throws on invalid UTF-8 when it writes a string. Each invalid
// byte becomes U+FFFD instead, so `record info --json`, `export` and the reports stay valid JSON.

#include <string>

namespace hermit {

// `indent` < 0: one line.
template <typename Json> std::string json_text(const Json& document, int indent = -1) {
    return document.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace hermit
