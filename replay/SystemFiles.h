#pragma once
// System files as inputs of a recording. The recorder copies the files a guest opens outside the system's
// directories into the recording (files.pack); the system's own files (under /usr, /bin, /sbin, /lib,
// /lib64, /etc: programs, shared libraries, the loader cache, locale and Python's modules) are opened
// from a call site the tracer never sees, by the dynamic loader, or by the kernel (a program, its ELF
// interpreter), so they are learnt from the kernel instead: fanotify reports every open through the
// guest's own mounts. Their bytes go to the store's BlobStore, shared by all recordings, and the
// recording lists them (RecordingMeta::system_files). A replay bind-mounts the recorded bytes over every
// such file that changed since, in the guest's mount namespace: it sees what the recording saw after a
// package upgrade, on another machine, whatever the system holds by then.

#include "formats/BlobStore.h"
#include "formats/FileIo.h"
#include "formats/Recording.h"
#include "tracer/GuestLauncher.h"

#include <sys/types.h>

#include <map>
#include <vector>

namespace hermit::replay {

class SystemFileWatch {
public:
    // Watches opens through the mounts of the system directories that the guest `guest` (its host pid,
    // before it execs) sees. Only a guest with a mount namespace of its own: through hermit's mounts, every
    // process's opens would count. Without fanotify (hermit lacks CAP_SYS_ADMIN) it warns and keeps
    // nothing: a replay then sees the system files as they are.
    void watch(pid_t guest);
    // The system directories that are directories (not links to others): the guest's namespace binds each
    // onto itself (GuestRunSpec::own_mounts), so that the mount watched for it holds it alone, and the
    // guest's opens elsewhere on the same file system (a build tree, /tmp) make no events.
    static std::vector<std::string> own_mounts();
    // The system files the guest opened and never wrote, their bytes kept in `blobs`; sorted by path.
    std::vector<SystemFile> keep_opened(BlobStore& blobs);

private:
    UniqueFd notifications_;
    std::map<uint64_t, std::string> mount_directories_; // mount id -> the system directory it holds alone
};

// The store holding the blobs of the recording in `directory`: the one it lies in, else the environment's.
BlobStore blobs_of_recording(const std::filesystem::path& directory);

// Replay: an overlay of the recorded bytes for every system file of `meta` that differs from them now.
// Throws E041 when one changed and the blobs lack its recorded bytes; warns about one that is gone (no
// file to mount over).
std::vector<tracer::FileOverlay> changed_system_files(const RecordingMeta& meta, BlobStore& blobs);

} // namespace hermit::replay
