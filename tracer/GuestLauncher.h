#pragma once
// GuestLauncher: starts the guest program, optionally in fresh user/pid/mount/uts namespaces, with the
// seccomp filter installed and PTRACE_SEIZE done before it execs.
//
// With namespaces the guest is forked straight into new user, pid, mount and uts namespaces, as their
// pid 1 (one clone, no process in between). Death propagates downwards: tracer dies -> guest gets SIGKILL
// (PR_SET_PDEATHSIG) -> the whole pid namespace dies with its pid 1. PTRACE_O_EXITKILL covers the traced
// tree. Without namespaces nothing ends the guest's leftover processes but the tracer.

#include "SeccompFilter.h"
#include "formats/FileIo.h"
#include "formats/Recording.h"

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace hermit::tracer {

class AbsentPaths;

// A file bind-mounted over a path in the guest's mount namespace (only with namespaces).
struct FileOverlay {
    std::string host_file;
    std::string guest_path;
};

struct LaunchOptions {
    std::string executable; // already resolved (resolve_executable)
    std::vector<std::string> argv;
    std::vector<std::string> env;
    std::string cwd; // empty: inherit
    bool namespaces = true;
    bool disable_aslr = true;
    bool trap_rdtsc = false;               // the caller checked that an interceptor emulates the faults
    const SeccompFilter* filter = nullptr; // null: no seccomp and no ptrace (--namespace-only)
    // Stacked on `filter` with a listener for the tracer (SeccompFilter::notifying); null: none.
    const SeccompFilter* notifying_filter = nullptr;
    // Replay: the guest gets stand-ins for these descriptors above 2 and no other (InheritedDescriptors.h).
    // Null: it inherits hermit's.
    const std::vector<InheritedDescriptor>* stand_ins = nullptr;
    // Replay: the guest's stdin is this open file (the recording's copy of a regular-file stdin), read from
    // `stdin_offset`. -1: it inherits hermit's.
    int stdin_file = -1;
    uint64_t stdin_offset = 0;
    // Replay: these of the guest's descriptors 1 and 2 are /dev/null, as they were when recorded (what the
    // guest wrote there was discarded, so a replay does not show it). Empty: it inherits hermit's.
    std::vector<int> null_outputs;
    // Directories bound onto themselves in the guest's mount namespace, each a mount of its own (with
    // namespaces): a fanotify mount mark on one then sees the opens under it only.
    std::vector<std::string> own_mounts;
    // Made to exist in the guest's mount namespace first (with namespaces; null: none).
    const AbsentPaths* absent_paths = nullptr;
    // Mounted where the guest's path exists and the mount succeeds; the caller checks which did.
    std::vector<FileOverlay> overlays;
    // Called with the guest's host pid once its namespaces and mounts are set up, before it execs.
    std::function<void(pid_t)> before_exec;
};

struct LaunchedGuest {
    pid_t guest = 0; // host pid of the guest program
    bool in_namespaces = false;
    // The guest's user namespace maps hermit's own uid and gid only, and they are also hermit's effective
    // ids: every guest thread's credentials are hermit's, for good (a setuid or setgid exec cannot change
    // them to an id the namespace does not map).
    bool has_hermit_credentials = false;
    // The listener of options.notifying_filter; invalid without one.
    UniqueFd notifications;
};

// Forks and starts the guest. When options.filter is set the guest is PTRACE_SEIZEd with
// `ptrace_options` before it execs, and its first stop is PTRACE_EVENT_EXEC.
LaunchedGuest launch_guest(const LaunchOptions& options, long ptrace_options);

// --namespace-only: runs the guest in namespaces without ptrace or seccomp and returns its shell-style
// exit status.
int run_untraced(const LaunchOptions& options);

// Shell-style status of a waitpid status: exit code, or 128+N for death by signal N.
int shell_status(int wait_status);

} // namespace hermit::tracer
