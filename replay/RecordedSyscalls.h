#pragma once
// Which system calls the recorder traps and what the replayer does with each of them. The recorder and
// the replayer must trap exactly the same set, so that a recording and its replay emit the same events;
// both read it from here.

#include "formats/Recording.h"
#include "tracer/DescriptorTraps.h"
#include "tracer/Task.h"

#include <sys/types.h>

#include <set>
#include <string>
#include <vector>

namespace hermit::replay {

enum class ReplayTreatment {
    // Not trapped by record/replay (the Session and the Virtualizer may still trap it).
    NotRecorded,
    // Reads the outside world (file data and metadata, pipes, sockets, terminals): the recorder captures
    // the result and the memory it wrote, the replayer returns them without running the syscall.
    EmulateFromLog,
    // Opens a file: runs for real on replay (later mmaps need the fd), redirected to the recording's copy
    // when the original file is missing or changed.
    OpenFile,
    // Writes: run for real on descriptors the guest inherited (hermit's stdout/stderr, files) so replay
    // reproduces the output; emulated on pipes and sockets, whose readers are emulated.
    Write,
    // Changes names or metadata in the file system by path (unlink, rename, mkdir, chmod, truncate,
    // utimensat, ...): emulated from the log, so a replay never changes the user's files; the replayer
    // keeps its private copies of written files in step.
    ChangePath,
    // Starts a program: the recorder copies a program that is not a system file, the replayer runs the
    // copy (or the one the guest built during the replay) when the original is missing or changed.
    Execute,
    // Changes the working directory (chdir): runs for real, on replay into the stand-in of a directory the
    // guest made (MadeNames), which only the replay's view holds. getcwd is EmulateFromLog, so the guest
    // never sees the stand-in's name.
    ChangeDirectory,
};

ReplayTreatment replay_treatment(int number);

// The syscalls that recording and replay trap at every call: every syscall whose treatment is not
// NotRecorded, except the descriptor_syscalls(); and the registration of a syscall buffer
// (tracer/SyscallBuffer.h).
std::set<int> recorded_syscalls();

// The recorded syscalls whose entry the recorder and the replayer handle without a ptrace stop (read from
// a seccomp notification): the stat family, which the Virtualizer answers; readlink, access, getxattr and
// the name changes, getcwd and the ioctls that report a descriptor's state, which the recorder performs
// itself (GuestFileIo) and the replayer answers from the log (another ioctl is brought to its ptrace
// stop); getdents64, which the Session reads on the guest's descriptor when recording
// (tracer/virt/GuestDirectoryRead.h); and open and openat, which the Session does as the guest when it can
// (tracer/virt/GuestOpen.h), the replay's copy of a file in place of the original where the replayer says
// so; the registration of a syscall buffer.
std::set<int> notifiable_recorded_syscalls();

// Reads, writes and seeks: trapped only on descriptors that must_trap_descriptor(); on the others (the
// program's own regular files) they run at native speed in the recording and again in the replay, which
// gives the guest a copy of the same file (see Recorder and Replayer).
std::set<int> descriptor_syscalls();

// Anything that may answer differently on replay: pipes, sockets, terminals, devices but /dev/null, zero
// and full, files on pseudo file systems (/proc, /sys, ...). Not regular files and directories. True also
// when the descriptor is not open.
bool must_trap_descriptor(pid_t host_pid, int fd);

// Which of hermit's descriptors 0, 1, 2 and `inherited` a guest recorded now starts with trapped: all but
// /dev/null-like ones and a regular-file stdin (copied into the recording and given to the replayed
// guest). Stdout and stderr are trapped when they are regular files too: a replay writes them to its own.
std::vector<int32_t> initially_trapped_descriptors(const std::vector<InheritedDescriptor>& inherited);

// The DescriptorTraps of a recording and of its replay, which must trap the same: meta.trapped_descriptors
// from the start.
tracer::DescriptorTraps recorded_descriptor_traps(const RecordingMeta& meta);

// The flags of an open, openat, openat2 or creat the thread is stopped at.
uint64_t open_flags(tracer::Task& task, const tracer::SyscallStop& stop);
// Whether an open with `flags` may write to the file it names (O_TRUNC and O_CREAT included).
bool opens_for_writing(uint64_t flags);

// Files under /usr, /bin, /sbin, /lib, /etc, /proc, /sys, /dev (but /dev/shm) belong to the system, not to
// the program's input and output: the recorder does not copy them and replay opens them as they are.
bool is_system_file(const std::string& absolute_path);
// Under /usr, /bin, /sbin, /lib, /lib64 or /etc: a system file whose bytes the recording keeps in the
// store's blobs (replay/SystemFiles.h).
bool is_stable_system_file(const std::string& absolute_path);

// A readlink, readlinkat, access, faccessat, faccessat2 or path-named getxattr or listxattr (and their l
// forms) of an absolute path under /usr, /bin, /sbin, /lib, /lib64 or /etc, without "." or "..": like the
// system files themselves (is_system_file), what it finds is the same on replay, so the recorder and the
// replayer let the kernel answer it untraced, without an event (a compiler's realpath asks about every
// component of every header it includes).
bool asks_about_system_file(tracer::Task& task, const tracer::SyscallStop& stop);

} // namespace hermit::replay
