#pragma once
// The descriptors a recvmsg received (SCM_RIGHTS control messages), read from the guest's msghdr after
// the call: the tracer traps them like any new descriptor, and a replay, where recvmsg is emulated and
// passes nothing, puts stand-ins at their numbers.

#include "GuestMemory.h"

#include <cstdint>
#include <vector>

namespace hermit::tracer {

std::vector<int> received_descriptors(GuestMemory& memory, uint64_t message_address);

} // namespace hermit::tracer
