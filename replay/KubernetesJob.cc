#include "KubernetesJob.h"

#include "ShellWords.h"
#include "formats/Error.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <sstream>

namespace hermit::replay {

namespace {

// Shell arithmetic is signed 64-bit.
constexpr uint64_t kLargestShellSeed = static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) / 2;

// A DNS-1123 label, as Kubernetes requires of Job names (and shorter, leaving room for pod suffixes).
bool is_valid_job_name(const std::string& name) {
    if (name.empty() || name.size() > 52 || name.front() == '-' || name.back() == '-') {
        return false;
    }
    return std::all_of(name.begin(), name.end(), [](char character) {
        return (character >= 'a' && character <= 'z') || (character >= '0' && character <= '9') ||
               character == '-';
    });
}

// A YAML double-quoted scalar.
std::string yaml_quote(const std::string& text) {
    std::string quoted = "\"";
    for (unsigned char character : text) {
        if (character == '"' || character == '\\') {
            quoted += '\\';
            quoted += static_cast<char>(character);
        } else if (character < 0x20 || character == 0x7f) {
            quoted += fmt::format("\\x{:02x}", character);
        } else {
            quoted += static_cast<char>(character);
        }
    }
    return quoted + "\"";
}

void validate(const KubernetesJobOptions& options) {
    if (options.shards == 0 || options.shards > options.seeds.count()) {
        throw Error(ErrorCode::UsageError,
                    fmt::format("--shards={} must be between 1 and the number of seeds ({})", options.shards,
                                options.seeds.count()));
    }
    if (options.seeds.last > kLargestShellSeed) {
        throw Error(ErrorCode::UsageError,
                    fmt::format("seeds above {} do not fit the Job's shell arithmetic", kLargestShellSeed));
    }
    if (!is_valid_job_name(options.job_name)) {
        throw Error(ErrorCode::UsageError,
                    "--job-name '" + options.job_name +
                        "' must be 1-52 lowercase letters, digits or '-', not starting or ending with '-'");
    }
    if (options.image.empty()) {
        throw Error(ErrorCode::UsageError, "--image must name a container image");
    }
    if (options.command.empty()) {
        throw Error(ErrorCode::MissingCommand);
    }
}

} // namespace

SeedRange shard_seeds(const SeedRange& all, uint64_t shards, uint64_t index) {
    const uint64_t size = all.count() / shards;
    const uint64_t extra = all.count() % shards;
    SeedRange shard;
    shard.first = all.first + index * size + std::min(index, extra);
    shard.last = shard.first + size - (index < extra ? 0 : 1);
    return shard;
}

std::string shard_range_script(const SeedRange& all, uint64_t shards) {
    return fmt::format("FIRST={}\n"
                       "LAST={}\n"
                       "SHARDS={}\n"
                       "INDEX=\"${{JOB_COMPLETION_INDEX:?must run as an Indexed Job}}\"\n"
                       "SIZE=$(( (LAST - FIRST + 1) / SHARDS ))\n"
                       "EXTRA=$(( (LAST - FIRST + 1) % SHARDS ))\n"
                       "if [ \"$INDEX\" -lt \"$EXTRA\" ]; then\n"
                       "  START=$(( FIRST + INDEX * (SIZE + 1) ))\n"
                       "  END=$(( START + SIZE ))\n"
                       "else\n"
                       "  START=$(( FIRST + INDEX * SIZE + EXTRA ))\n"
                       "  END=$(( START + SIZE - 1 ))\n"
                       "fi\n",
                       all.first, all.last, shards);
}

std::string kubernetes_job_manifest(const KubernetesJobOptions& options) {
    validate(options);
    const uint64_t parallelism = options.parallelism > 0 ? std::min(options.parallelism, options.shards)
                                                         : std::min<uint64_t>(options.shards, 10);

    std::vector<std::string> search{"hermit", "search"};
    search.insert(search.end(), options.search_arguments.begin(), options.search_arguments.end());
    std::string script = shard_range_script(options.seeds, options.shards);
    // The search's report goes to stderr so the pod log (stdout) is exactly the shard's JSON, which lets
    // `kubectl logs` collect results even without a persistent volume.
    script += shell_join(search) + " --seeds=\"$START..$END\" --json=\"/results/shard-$INDEX.json\" -- " +
              shell_join(options.command) + " >&2\n";
    script += "STATUS=$?\n"
              "cat \"/results/shard-$INDEX.json\"\n"
              "exit \"$STATUS\"\n";

    std::ostringstream yaml;
    yaml << "# hermit search over seeds " << options.seeds.first << ".." << options.seeds.last << " in "
         << options.shards << " shards; results in /results/shard-<index>.json\n";
    yaml << "apiVersion: batch/v1\n"
         << "kind: Job\n"
         << "metadata:\n"
         << "  name: " << options.job_name << "\n"
         << "  labels:\n"
         << "    app.kubernetes.io/name: hermit-search\n"
         << "spec:\n"
         << "  completionMode: Indexed\n"
         << "  completions: " << options.shards << "\n"
         << "  parallelism: " << parallelism << "\n"
         << "  backoffLimit: 3\n"
         << "  template:\n"
         << "    metadata:\n"
         << "      labels:\n"
         << "        app.kubernetes.io/name: hermit-search\n"
         << "    spec:\n"
         << "      restartPolicy: Never\n"
         << "      containers:\n"
         << "        - name: search\n"
         << "          image: " << yaml_quote(options.image) << "\n"
         << "          command:\n"
         << "            - /bin/sh\n"
         << "            - -c\n"
         << "            - |\n";
    std::istringstream lines(script);
    for (std::string line; std::getline(lines, line);) {
        yaml << "              " << line << "\n";
    }
    // ptrace and seccomp filters of the guest need SYS_PTRACE and no container seccomp profile.
    yaml << "          securityContext:\n"
         << "            capabilities:\n"
         << "              add:\n"
         << "                - SYS_PTRACE\n"
         << "            seccompProfile:\n"
         << "              type: Unconfined\n"
         << "          resources:\n"
         << "            requests:\n"
         << "              cpu: \"1\"\n"
         << "          volumeMounts:\n"
         << "            - name: results\n"
         << "              mountPath: /results\n"
         << "      volumes:\n"
         << "        - name: results\n";
    if (options.results_claim.empty()) {
        yaml << "          emptyDir: {}\n";
    } else {
        yaml << "          persistentVolumeClaim:\n"
             << "            claimName: " << yaml_quote(options.results_claim) << "\n";
    }
    return yaml.str();
}

} // namespace hermit::replay
