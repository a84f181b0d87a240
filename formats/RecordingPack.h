#pragma once
// RecordingPack: one recording and the system files it keeps in the store's blobs, as one file to take to
// another machine (of the same kernel and CPU features). The file is an xz-compressed POSIX tar archive,
// so `tar tJf` lists it:
//   <id>/...                   the recording's directory, as it is
//   .blobs/<2 hex>/<sha256>    every system file it refers to (RecordingMeta::system_files)
// Unpacking checks every blob against its name and reads the recording back before it takes its place.
#include "RecordingStore.h"

#include <filesystem>
#include <string>

namespace hermit {

// Writes the recording `id_or_path` of `store` to `output` (replaced). Throws E030/E034 for the recording,
// E038 when `output` cannot be written (nothing is left there then).
void pack_recording(const RecordingStore& store, const std::string& id_or_path,
                    const std::filesystem::path& output);

// Adds the recording packed in `input` to `store`, and its blobs to the store's; returns its id. Throws
// E036 when `input` is not such a pack (or is damaged), E037 when `store` has a recording of that id.
std::string unpack_recording(RecordingStore& store, const std::filesystem::path& input);

} // namespace hermit
