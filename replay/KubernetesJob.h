#pragma once
// KubernetesJob: `hermit search --emit-k8s-job` writes a batch/v1 Job that splits a seed range over
// `shards` pods of an Indexed Job. Pod i computes its own sub-range from JOB_COMPLETION_INDEX in a POSIX
// shell snippet, runs `hermit search` on it and writes /results/shard-<i>.json, which it also prints as
// the pod's log. The YAML is written by
// hand in a fixed order, so the same options always give byte-identical manifests.

#include "SeedSearch.h"

#include <cstdint>
#include <string>
#include <vector>

namespace hermit::replay {

struct KubernetesJobOptions {
    SeedRange seeds;
    uint64_t shards = 1;
    uint64_t parallelism = 0; // 0: min(shards, 10)
    std::string job_name = "hermit-search";
    std::string image = "hermit:latest"; // must contain `hermit` on PATH and the guest program
    std::string results_claim;           // PersistentVolumeClaim mounted at /results; empty: an emptyDir
    std::vector<std::string> search_arguments; // extra `hermit search` options, e.g. --sched-heuristic=pct
    std::vector<std::string> command;          // the guest command line
};

// Shard `index` (0-based) of `shards` near-equal parts: the first (count % shards) shards get one seed
// more. Every seed of `all` is in exactly one shard. Requires 1 <= shards <= all.count().
SeedRange shard_seeds(const SeedRange& all, uint64_t shards, uint64_t index);

// The shell lines that set START and END for the shard JOB_COMPLETION_INDEX, computing shard_seeds().
std::string shard_range_script(const SeedRange& all, uint64_t shards);

// The whole manifest. Throws hermit::Error (E002) for options Kubernetes or the shard split cannot take.
std::string kubernetes_job_manifest(const KubernetesJobOptions& options);

} // namespace hermit::replay
