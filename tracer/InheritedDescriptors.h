#pragma once
// InheritedDescriptors: the descriptors above 2 a guest inherits from whoever started hermit (hermit's own
// descriptors without FD_CLOEXEC, such as `3</etc/hostname` or one a shell leaves open). The guest's own
// descriptors are numbered around them, so a replay must give the guest the same numbers: a recording
// lists them, and the replayed guest gets a stand-in of the same kind and access mode at each number and
// nothing else above 2 (never the replaying hermit's own, and never the real object: a replay must not
// read or write the outside world).

#include "formats/Recording.h"

#include <vector>

namespace hermit::tracer {

// Hermit's open descriptors above 2 that an exec'd child keeps, in increasing order.
std::vector<InheritedDescriptor> inheritable_descriptors();

// In the forked guest before it execs (allocates nothing): puts a stand-in for each of `descriptors`
// (sorted by fd) at its number and closes every other descriptor above 2. Returns the name of the step
// that failed, or nullptr.
const char* install_stand_ins(const std::vector<InheritedDescriptor>& descriptors);

} // namespace hermit::tracer
