#include "GuestLauncher.h"

#include "AbsentPaths.h"
#include "InheritedDescriptors.h"

#include "formats/Error.h"

#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <spdlog/spdlog.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace hermit::tracer {

namespace {

// Everything the child needs, prepared before fork so the child does not allocate.
struct ChildPlan {
    const LaunchOptions* options;
    std::vector<char*> argv;
    std::vector<char*> env;
    std::string uid_map;
    std::string gid_map;
};

std::vector<char*> c_strings(const std::vector<std::string>& strings) {
    std::vector<char*> pointers;
    for (const auto& text : strings) {
        pointers.push_back(const_cast<char*>(text.c_str()));
    }
    pointers.push_back(nullptr);
    return pointers;
}

void write_all(int fd, const void* data, size_t length) {
    const char* bytes = static_cast<const char*>(data);
    while (length > 0) {
        ssize_t count = write(fd, bytes, length);
        if (count < 0 && errno == EINTR) {
            continue;
        }
        if (count <= 0) {
            return;
        }
        bytes += count;
        length -= static_cast<size_t>(count);
    }
}

bool write_file(const char* path, const std::string& text) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) {
        return false;
    }
    bool ok = write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    close(fd);
    return ok;
}

[[noreturn]] void child_fail(const char* what) {
    const char* reason = strerror(errno);
    dprintf(2, "hermit: guest setup failed: %s: %s\n", what, reason);
    _exit(125);
}

// Dies with the parent; the check after prctl closes the race where the parent is already gone.
void die_with_parent(pid_t expected_parent) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != expected_parent) {
        _exit(125);
    }
}

// Child side, after the tracer seized the guest and with PR_SET_NO_NEW_PRIVS set: installs the notifying
// filter and hands its listener to the tracer over `channel`, with one byte ('l' with the descriptor, 'n'
// without). A kernel without killable notification waits (before 5.19) or a listener already on this process
// (hermit under hermit) leaves the tracer without one: then those syscalls take the ptrace way.
void hand_over_listener(const SeccompFilter& notifying, int channel) {
    const int listener = notifying.install_with_listener();
    char tag = listener >= 0 ? 'l' : 'n';
    iovec payload{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    if (listener >= 0) {
        message.msg_control = control;
        message.msg_controllen = sizeof control;
        cmsghdr* header = CMSG_FIRSTHDR(&message);
        header->cmsg_level = SOL_SOCKET;
        header->cmsg_type = SCM_RIGHTS;
        header->cmsg_len = CMSG_LEN(sizeof(int));
        std::memcpy(CMSG_DATA(header), &listener, sizeof(int));
    }
    while (sendmsg(channel, &message, MSG_NOSIGNAL) < 0) {
        if (errno != EINTR) {
            child_fail("handing the seccomp listener to the tracer");
        }
    }
    if (listener >= 0) {
        close(listener);
    }
}

// Tracer side of hand_over_listener: the listener, or an invalid descriptor.
UniqueFd receive_listener(int channel) {
    char tag = 0;
    iovec payload{&tag, 1};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    msghdr message{};
    message.msg_iov = &payload;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    ssize_t count;
    while ((count = recvmsg(channel, &message, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR) {
    }
    const cmsghdr* header = count == 1 ? CMSG_FIRSTHDR(&message) : nullptr;
    if (header == nullptr || header->cmsg_type != SCM_RIGHTS) {
        spdlog::debug("no seccomp listener: every trapped syscall is a ptrace stop");
        return UniqueFd{};
    }
    int listener = -1;
    std::memcpy(&listener, CMSG_DATA(header), sizeof(int));
    return UniqueFd(listener);
}

void reset_signals() {
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    for (int signal_number :
         {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGQUIT, SIGTSTP, SIGTTIN, SIGTTOU}) {
        ::signal(signal_number, SIG_DFL);
    }
}

// Like fork, with the child in new user, pid, mount and uts namespaces, as their pid 1: -1 with errno
// where they cannot be made. The child of this raw clone must stay async-signal-safe, as after a fork of
// a threaded process, and more: glibc's copy of its thread id is its parent's.
pid_t fork_into_namespaces() {
    return static_cast<pid_t>(syscall(SYS_clone,
                                      CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNS | CLONE_NEWUTS | SIGCHLD,
                                      nullptr, nullptr, nullptr, nullptr));
}

// In the guest, pid 1 of its new namespaces: root of its user namespace, hostname `hermit`, a private
// mount tree with the overlays and a /proc that shows namespace pids.
void set_up_namespaces(const ChildPlan& plan) {
    write_file("/proc/self/setgroups", "deny");
    if (!write_file("/proc/self/uid_map", plan.uid_map) || !write_file("/proc/self/gid_map", plan.gid_map)) {
        child_fail("writing the uid/gid maps");
    }
    const char hostname[] = "hermit";
    sethostname(hostname, sizeof hostname - 1);
    // Private first: mounts made in the new namespace must not propagate to the host's.
    if (mount(nullptr, "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
        child_fail("making / private");
    }
    for (const std::string& directory : plan.options->own_mounts) {
        mount(directory.c_str(), directory.c_str(), nullptr, MS_BIND | MS_REC, nullptr);
    }
    if (plan.options->absent_paths != nullptr && !plan.options->absent_paths->apply()) {
        dprintf(2, "hermit: [warning] cannot make the paths the guest needs and the host lacks: %s\n",
                strerror(errno));
    }
    for (const FileOverlay& overlay : plan.options->overlays) {
        mount(overlay.host_file.c_str(), overlay.guest_path.c_str(), nullptr, MS_BIND, nullptr);
    }
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, nullptr) != 0) {
        child_fail("mounting /proc");
    }
}

[[noreturn]] void exec_guest(const ChildPlan& plan, int go_fd, bool traced) {
    const LaunchOptions& options = *plan.options;
    if (traced) {
        // Wait until the tracer has seized us: a trapped syscall without a tracer fails with ENOSYS.
        char go = 0;
        while (read(go_fd, &go, 1) < 0 && errno == EINTR) {
        }
        if (go != 'g') {
            _exit(125);
        }
        // Both filters need it; set before the first, which is installed here.
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
            child_fail("PR_SET_NO_NEW_PRIVS");
        }
    }
    if (options.notifying_filter != nullptr) {
        hand_over_listener(*options.notifying_filter, go_fd);
    }
    close(go_fd);
    // Before the stand-ins, which close every other descriptor.
    if (options.stdin_file >= 0 &&
        (lseek(options.stdin_file, static_cast<off_t>(options.stdin_offset), SEEK_SET) < 0 ||
         dup2(options.stdin_file, 0) != 0)) {
        child_fail("replace stdin");
    }
    for (int fd : options.null_outputs) {
        const int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, fd) != fd || (null != fd && close(null) != 0)) {
            child_fail("replace an output with /dev/null");
        }
    }
    if (options.stand_ins != nullptr) {
        if (const char* failed = install_stand_ins(*options.stand_ins)) {
            child_fail(failed);
        }
    }
    if (!options.cwd.empty() && chdir(options.cwd.c_str()) != 0) {
        child_fail("chdir");
    }
    if (options.disable_aslr) {
        personality(ADDR_NO_RANDOMIZE);
    }
    if (options.trap_rdtsc && prctl(PR_SET_TSC, PR_TSC_SIGSEGV) != 0) {
        child_fail("prctl(PR_SET_TSC)");
    }
    if (options.filter != nullptr) {
        if (!options.filter->install()) {
            child_fail("installing the seccomp filter");
        }
    }
    execve(options.executable.c_str(), plan.argv.data(), plan.env.data());
    dprintf(2, "hermit: cannot execute %s: %s\n", options.executable.c_str(), strerror(errno));
    _exit(errno == ENOENT ? 127 : 126);
}

// The forked guest, up to its exec. It reports one byte on `report_fd` once its namespaces are set up.
[[noreturn]] void run_guest(const ChildPlan& plan, pid_t tracer, bool in_namespaces, int report_fd, int go_fd,
                            bool traced) {
    setpgid(0, 0);
    die_with_parent(in_namespaces ? 0 : tracer); // a parent outside the new pid namespace shows as 0
    reset_signals();
    if (in_namespaces) {
        set_up_namespaces(plan);
    }
    const char ready = 'r';
    write_all(report_fd, &ready, 1);
    close(report_fd);
    exec_guest(plan, go_fd, traced);
}

LaunchedGuest start(const LaunchOptions& options, long ptrace_options) {
    const bool traced = options.filter != nullptr;
    ChildPlan plan{&options, c_strings(options.argv), c_strings(options.env),
                   "0 " + std::to_string(getuid()) + " 1", "0 " + std::to_string(getgid()) + " 1"};
    // The go channel is a socket pair so that the guest can send its seccomp listener back through it.
    int report_pipe[2], go_channel[2];
    if (pipe2(report_pipe, O_CLOEXEC) != 0 ||
        socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, go_channel) != 0) {
        throw Error(ErrorCode::TracerInternal, std::string("launch channels: ") + std::strerror(errno));
    }
    const pid_t tracer = getpid();
    pid_t child = options.namespaces ? fork_into_namespaces() : -1;
    const bool in_namespaces = child >= 0;
    if (options.namespaces && !in_namespaces) {
        spdlog::warn("cannot create namespaces ({}); running the guest without them", std::strerror(errno));
    }
    if (!in_namespaces) {
        child = fork();
    }
    if (child < 0) {
        throw Error(ErrorCode::TracerInternal, std::string("fork: ") + std::strerror(errno));
    }
    if (child == 0) {
        close(report_pipe[0]);
        close(go_channel[1]);
        run_guest(plan, tracer, in_namespaces, report_pipe[1], go_channel[0], traced);
    }
    close(report_pipe[1]);
    close(go_channel[0]);
    char ready = 0;
    ssize_t count;
    while ((count = read(report_pipe[0], &ready, 1)) < 0 && errno == EINTR) {
    }
    close(report_pipe[0]);
    if (count != 1) {
        close(go_channel[1]);
        int status = 0;
        waitpid(child, &status, 0);
        throw Error(ErrorCode::NamespaceUnavailable, "the guest's setup process failed");
    }
    if (options.before_exec) {
        options.before_exec(child);
    }
    const bool ids_effective = getuid() == geteuid() && getgid() == getegid();
    LaunchedGuest launched{child, in_namespaces, in_namespaces && ids_effective, {}};
    if (traced && ptrace(PTRACE_SEIZE, launched.guest, nullptr, ptrace_options) != 0) {
        int error = errno;
        kill(launched.guest, SIGKILL);
        close(go_channel[1]);
        int status = 0;
        waitpid(child, &status, 0);
        throw Error(ErrorCode::PtraceUnavailable, std::string("PTRACE_SEIZE: ") + std::strerror(error));
    }
    if (traced) {
        // An untraced guest does not wait for this and may have exec'd already: writing to the channel
        // without a reader would raise SIGPIPE in hermit.
        const char go = 'g';
        write_all(go_channel[1], &go, 1);
        if (options.notifying_filter != nullptr) {
            launched.notifications = receive_listener(go_channel[1]);
        }
    }
    close(go_channel[1]);
    return launched;
}

} // namespace

int shell_status(int wait_status) {
    if (WIFEXITED(wait_status)) {
        return WEXITSTATUS(wait_status);
    }
    if (WIFSIGNALED(wait_status)) {
        return 128 + WTERMSIG(wait_status);
    }
    return 125;
}

LaunchedGuest launch_guest(const LaunchOptions& options, long ptrace_options) {
    return start(options, ptrace_options);
}

int run_untraced(const LaunchOptions& options) {
    LaunchOptions untraced = options;
    untraced.filter = nullptr;
    LaunchedGuest launched = start(untraced, 0);
    int status = 0;
    while (waitpid(launched.guest, &status, 0) < 0) {
        if (errno != EINTR) {
            throw Error(ErrorCode::TracerInternal, std::string("waitpid: ") + std::strerror(errno));
        }
    }
    return shell_status(status);
}

} // namespace hermit::tracer
