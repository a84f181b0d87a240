#include "replay/KubernetesJob.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

#include <stdio.h>
#include <sys/wait.h>

#include <map>
#include <sstream>

namespace hermit::replay {
namespace {

KubernetesJobOptions job_options(SeedRange seeds, uint64_t shards) {
    KubernetesJobOptions options;
    options.seeds = seeds;
    options.shards = shards;
    options.image = "registry.example/hermit:1";
    options.search_arguments = {"--sched-heuristic=pct", "--pct-depth=2"};
    options.command = {"./order_violation", "an arg"};
    return options;
}

// Runs the shard script under the real /bin/sh for one JOB_COMPLETION_INDEX and returns "START END".
std::string run_shard_script(const SeedRange& all, uint64_t shards, uint64_t index) {
    std::string script = "JOB_COMPLETION_INDEX=" + std::to_string(index) + "\n" +
                         shard_range_script(all, shards) + "echo \"$START $END\"\n";
    std::string command = "/bin/sh -c '" + script + "'";
    FILE* pipe = popen(command.c_str(), "r");
    EXPECT_NE(pipe, nullptr);
    char buffer[256] = {};
    std::string output = fgets(buffer, sizeof buffer, pipe) != nullptr ? buffer : "";
    EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 0);
    return output;
}

// The manifest's lines keyed by their trimmed text, for structural checks without a YAML library.
bool has_line(const std::string& manifest, const std::string& trimmed) {
    std::istringstream lines(manifest);
    for (std::string line; std::getline(lines, line);) {
        if (line.substr(line.find_first_not_of(' ') == std::string::npos ? 0 : line.find_first_not_of(' ')) ==
            trimmed) {
            return true;
        }
    }
    return false;
}

TEST(ShardSeedsTest, EverySeedIsInExactlyOneShardForEvenAndUnevenSplits) {
    const std::vector<std::pair<SeedRange, uint64_t>> cases = {
        {{1, 100000}, 100}, {{1, 10}, 3}, {{5, 5}, 1}, {{1, 10}, 10}, {{0, 99}, 7}, {{17, 1016}, 33}};
    for (const auto& [all, shards] : cases) {
        std::map<uint64_t, int> covered;
        uint64_t expected_first = all.first;
        for (uint64_t index = 0; index < shards; ++index) {
            SeedRange shard = shard_seeds(all, shards, index);
            ASSERT_LE(shard.first, shard.last) << "empty shard " << index;
            EXPECT_EQ(shard.first, expected_first) << "shards must be contiguous";
            expected_first = shard.last + 1;
            // Near-equal: sizes differ by at most one.
            EXPECT_LE(shard.count(), all.count() / shards + 1);
            EXPECT_GE(shard.count(), all.count() / shards);
            for (uint64_t seed = shard.first; seed <= shard.last; ++seed) {
                ++covered[seed];
            }
        }
        EXPECT_EQ(covered.size(), all.count());
        EXPECT_EQ(covered.begin()->first, all.first);
        EXPECT_EQ(covered.rbegin()->first, all.last);
        for (const auto& [seed, times] : covered) {
            EXPECT_EQ(times, 1) << "seed " << seed;
        }
    }
}

TEST(ShardSeedsTest, ShellSnippetComputesTheSameRangesAsTheCode) {
    const std::vector<std::pair<SeedRange, uint64_t>> cases = {
        {{1, 10}, 3}, {{1, 100000}, 100}, {{0, 99}, 7}};
    for (const auto& [all, shards] : cases) {
        for (uint64_t index : {uint64_t{0}, uint64_t{1}, shards / 2, shards - 1}) {
            SeedRange shard = shard_seeds(all, shards, index);
            EXPECT_EQ(run_shard_script(all, shards, index),
                      std::to_string(shard.first) + " " + std::to_string(shard.last) + "\n")
                << all.first << ".." << all.last << " / " << shards << " index " << index;
        }
    }
}

TEST(KubernetesJobTest, ManifestIsAnIndexedJobRunningOneSearchPerShard) {
    const std::string manifest = kubernetes_job_manifest(job_options({1, 100000}, 100));
    EXPECT_TRUE(has_line(manifest, "apiVersion: batch/v1"));
    EXPECT_TRUE(has_line(manifest, "kind: Job"));
    EXPECT_TRUE(has_line(manifest, "name: hermit-search"));
    EXPECT_TRUE(has_line(manifest, "completionMode: Indexed"));
    EXPECT_TRUE(has_line(manifest, "completions: 100"));
    EXPECT_TRUE(has_line(manifest, "parallelism: 10"));
    EXPECT_TRUE(has_line(manifest, "restartPolicy: Never"));
    EXPECT_TRUE(has_line(manifest, "image: \"registry.example/hermit:1\""));
    EXPECT_TRUE(has_line(manifest, "- /bin/sh"));
    EXPECT_TRUE(has_line(manifest, "- SYS_PTRACE"));
    EXPECT_TRUE(has_line(manifest, "mountPath: /results"));
    EXPECT_TRUE(has_line(manifest, "emptyDir: {}"));
    EXPECT_TRUE(has_line(manifest,
                         "hermit search --sched-heuristic=pct --pct-depth=2 --seeds=\"$START..$END\" "
                         "--json=\"/results/shard-$INDEX.json\" -- ./order_violation 'an arg' >&2"));
    // Deterministic: the same options give the same bytes.
    EXPECT_EQ(manifest, kubernetes_job_manifest(job_options({1, 100000}, 100)));
}

TEST(KubernetesJobTest, ParallelismAndResultsClaimAreHonoured) {
    auto options = job_options({1, 50}, 4);
    EXPECT_TRUE(has_line(kubernetes_job_manifest(options), "parallelism: 4"));
    options.parallelism = 2;
    options.results_claim = "hermit-results";
    const std::string manifest = kubernetes_job_manifest(options);
    EXPECT_TRUE(has_line(manifest, "parallelism: 2"));
    EXPECT_TRUE(has_line(manifest, "claimName: \"hermit-results\""));
    EXPECT_FALSE(has_line(manifest, "emptyDir: {}"));
}

TEST(KubernetesJobTest, TheEmbeddedScriptRunsUnderShAndStartsTheRightSearch) {
    // Run the container's script with a `hermit` on PATH that prints its arguments, as the pod would.
    const std::string manifest = kubernetes_job_manifest(job_options({1, 10}, 3));
    std::istringstream lines(manifest);
    std::string script;
    bool in_script = false;
    for (std::string line; std::getline(lines, line);) {
        if (line == "            - |") {
            in_script = true;
        } else if (in_script && line.rfind("              ", 0) == 0) {
            script += line.substr(14) + "\n";
        } else if (in_script) {
            break;
        }
    }
    ASSERT_FALSE(script.empty());
    char directory_template[] = "/tmp/hermit-k8s-test-XXXXXX";
    ASSERT_NE(mkdtemp(directory_template), nullptr);
    const std::string directory = directory_template;
    const std::string fake_results = directory + "/results";
    std::string setup = "mkdir -p " + fake_results + " && printf '#!/bin/sh\\necho \"$*\"\\necho \"{}\" > " +
                        fake_results + "/shard-2.json\\n' > " + directory + "/hermit && chmod +x " +
                        directory + "/hermit";
    ASSERT_EQ(system(setup.c_str()), 0);
    // The script writes to /results; point it at the scratch directory instead.
    std::string local_script;
    for (size_t at = 0; at < script.size();) {
        size_t found = script.find("/results/", at);
        if (found == std::string::npos) {
            local_script += script.substr(at);
            break;
        }
        local_script += script.substr(at, found - at) + fake_results + "/";
        at = found + 9;
    }
    const std::string script_path = directory + "/script.sh";
    FILE* file = fopen(script_path.c_str(), "w");
    ASSERT_NE(file, nullptr);
    fputs(local_script.c_str(), file);
    fclose(file);
    std::string command = "PATH=" + directory + ":$PATH JOB_COMPLETION_INDEX=2 /bin/sh " + script_path +
                          " 2>" + directory + "/stderr";
    FILE* pipe = popen(command.c_str(), "r");
    ASSERT_NE(pipe, nullptr);
    std::string stdout_text;
    char buffer[512];
    while (fgets(buffer, sizeof buffer, pipe) != nullptr) {
        stdout_text += buffer;
    }
    EXPECT_EQ(WEXITSTATUS(pclose(pipe)), 0);
    // Pod log = the shard's JSON; the search's own report went to stderr.
    EXPECT_EQ(stdout_text, "{}\n");
    FILE* errors = fopen((directory + "/stderr").c_str(), "r");
    ASSERT_NE(errors, nullptr);
    std::string stderr_text = fgets(buffer, sizeof buffer, errors) != nullptr ? buffer : "";
    fclose(errors);
    EXPECT_EQ(stderr_text, "search --sched-heuristic=pct --pct-depth=2 --seeds=8..10 --json=" + fake_results +
                               "/shard-2.json -- ./order_violation an arg\n");
    ASSERT_EQ(system(("rm -rf " + directory).c_str()), 0);
}

TEST(KubernetesJobTest, RejectsImpossibleShardCountsAndBadNames) {
    auto options = job_options({1, 10}, 11);
    EXPECT_THROW(kubernetes_job_manifest(options), Error);
    options.shards = 0;
    EXPECT_THROW(kubernetes_job_manifest(options), Error);
    options.shards = 2;
    options.job_name = "Hermit_Search";
    EXPECT_THROW(kubernetes_job_manifest(options), Error);
    options.job_name = "hermit-search";
    options.command.clear();
    EXPECT_THROW(kubernetes_job_manifest(options), Error);
}

} // namespace
} // namespace hermit::replay
