#pragma once
// HostProbe: finds out which determinism features this host offers (CPUID faulting, rdtsc trapping, a PMU
// with a retired-branch counter) and applies the --strict policy to what is missing: an error with
// --strict, otherwise one warning per missing feature.

#include "formats/Recording.h"

namespace hermit::tracer::virt {

// Each probe that changes per-task state runs in a child task, so the tracer itself is never affected. The
// CPUID and rdtsc probes execute the instruction and count a feature as present only if it faulted.
bool probe_cpuid_faulting();
bool probe_tsc_trapping();
bool probe_branch_counter();

// Runs all probes and fills kernel release and CPU count.
HostFacts probe_host();

// Throws hermit::Error(CpuidFaultingUnavailable / TscTrappingUnavailable) under `strict` when a feature is
// missing; otherwise logs a warning for it. A missing PMU is only logged at info level: hermit does not
// need one.
void enforce_host_requirements(const HostFacts& facts, bool strict);

} // namespace hermit::tracer::virt
