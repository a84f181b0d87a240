#pragma once
// AbsentPaths: paths a guest must find that the host no longer has (a system file a package removed, the
// recorded working directory), made to exist in the guest's own mount namespace only. The deepest existing
// directory above them gets an overlay mount whose upper layer is a tmpfs, so everything it held stays
// visible and the missing directories and files are made in the upper layer; the host is never touched.
// A file made so is empty: a FileOverlay then binds the bytes the guest must see over it.
//
// The same overlay serves `hermit run --verify`: a throwaway layer over an existing directory (the working
// directory), so that what a run writes there is gone when it ends and both runs start from the same files.
//
// Prepared in hermit (the plan allocates), applied by the guest's setup process after it entered its new
// mount namespace (apply() only makes syscalls). A directory that is "/" or has other mounts below it is
// not overlaid: the overlay would hide those mounts (/proc, /dev, /tmp); such paths stay absent.

#include "ScratchDirectory.h"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace hermit::tracer {

class AbsentPaths {
public:
    // `directories` and `files` that do not exist now are planned; the others are left alone.
    AbsentPaths(const std::vector<std::string>& directories, const std::vector<std::string>& files);

    // Plans a throwaway layer over the existing `directory`; false when it cannot have one (see above).
    bool add_throwaway_layer(const std::string& directory);

    bool empty() const { return overlays_.empty(); }
    // The absent paths that cannot be made (see above).
    const std::vector<std::string>& unreachable() const { return unreachable_; }
    // In the guest's setup process, in its own mount namespace: false (errno set) when a mount fails.
    bool apply() const;

private:
    // Plans an overlay over the existing `directory`; false for "/" or a directory with mounts below.
    bool plan_overlay(const std::filesystem::path& directory,
                      const std::vector<std::filesystem::path>& points);

    struct Overlay {
        std::string directory; // the existing directory it covers
        std::string layers;    // in the scratch tmpfs: upper and work below it
        std::string upper;
        std::string work;
        std::string options;
    };
    struct Made {
        std::string path;
        bool directory;
    };

    // The tmpfs of the upper layers is mounted on this (empty) directory of hermit's, in the guest's
    // namespace only; it lives as long as the plan.
    std::unique_ptr<ScratchDirectory> scratch_;
    std::vector<Overlay> overlays_;
    std::vector<Made> made_; // in the order they are made: parents first
    std::vector<std::string> unreachable_;
};

} // namespace hermit::tracer
