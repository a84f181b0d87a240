#pragma once
// FormatDamage: what the frame and event decoders throw when bytes from disk fail a check. It carries no
// recording name; RecordingReader adds that and turns it into the user-facing hermit::Error.

#include <cstdint>
#include <stdexcept>
#include <string>

namespace hermit {

class FormatDamage : public std::runtime_error {
public:
    enum class Kind {
        Corrupt,           // a check failed: magic, CRC, length limits, schema contents
        UnsupportedVersion // written by another format version
    };
    FormatDamage(Kind kind, const std::string& what, uint32_t found_version = 0)
        : std::runtime_error(what), kind_(kind), found_version_(found_version) {}

    Kind kind() const { return kind_; }
    uint32_t found_version() const { return found_version_; }

private:
    Kind kind_;
    uint32_t found_version_;
};

} // namespace hermit
