#pragma once
// Parsing of `--epoch`: the wall-clock time the guest's CLOCK_REALTIME starts at.

#include <cstdint>
#include <string_view>

namespace hermit::tracer::virt {

// Accepts seconds since 1970-01-01T00:00:00Z ("946684800") or a UTC date and time
// ("2000-01-01T00:00:00Z"). Returns ns since 1970. Throws hermit::Error(BadEpoch) for anything else.
int64_t parse_epoch(std::string_view text);

} // namespace hermit::tracer::virt
