#include "Commands.h"
#include "RunConfigOptions.h"
#include "SyscallNameLookup.h"
#include "formats/JsonText.h"

#include "formats/Error.h"
#include "formats/EventDescription.h"
#include "formats/EventStatistics.h"
#include "formats/Recording.h"
#include "formats/RecordingPack.h"
#include "formats/RecordingStore.h"
#include "replay/Recorder.h"

#include <fmt/chrono.h>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

namespace hermit::cli {

namespace {

using nlohmann::json;

std::string human_size(uint64_t bytes) {
    if (bytes < 1024) {
        return fmt::format("{} B", bytes);
    }
    const char* units[] = {"KiB", "MiB", "GiB", "TiB"};
    double value = static_cast<double>(bytes) / 1024.0;
    size_t unit = 0;
    while (value >= 1024.0 && unit + 1 < std::size(units)) {
        value /= 1024.0;
        ++unit;
    }
    return fmt::format("{:.1f} {}", value, units[unit]);
}

std::string local_date(int64_t unix_ms) {
    const std::time_t seconds = static_cast<std::time_t>(unix_ms / 1000);
    std::tm local{};
    ::localtime_r(&seconds, &local);
    return fmt::format("{:%Y-%m-%d %H:%M:%S}", local);
}

std::string shortened(const std::string& text, size_t width) {
    return text.size() <= width ? text : text.substr(0, width - 3) + "...";
}

std::string exit_text(const RecordingMeta& meta) {
    return meta.finished ? std::to_string(meta.exit_status) : "unfinished";
}

json meta_json(const RecordingMeta& meta) {
    json files = json::array();
    for (const auto& file : meta.files) {
        files.push_back({{"path", file.path},
                         {"sha256", file.sha256},
                         {"size", file.size},
                         {"only_read", file.only_read}});
    }
    json system_files = json::array();
    for (const auto& file : meta.system_files) {
        system_files.push_back({{"path", file.path}, {"sha256", file.sha256}, {"size", file.size}});
    }
    return {{"id", meta.id},
            {"name", meta.name},
            {"format_version", meta.format_version},
            {"argv", meta.argv},
            {"env", meta.env},
            {"cwd", meta.cwd},
            {"hermit_version", meta.hermit_version},
            {"started_at_unix_ms", meta.started_at_unix_ms},
            {"finished", meta.finished},
            {"exit_status", meta.exit_status},
            {"event_count", meta.event_count},
            {"thread_count", meta.thread_count},
            {"guest_duration_ns", meta.guest_duration_ns},
            {"config",
             {{"seed", meta.config.seed},
              {"epoch_ns", meta.config.epoch_ns},
              {"chaos", meta.config.chaos},
              {"sched_heuristic", meta.config.sched_heuristic},
              {"pct_depth", meta.config.pct_depth},
              {"preemption_timeout", meta.config.preemption_timeout},
              {"strict", meta.config.strict},
              {"namespaces", meta.config.namespaces}}},
            {"host",
             {{"kernel_release", meta.host.kernel_release},
              {"cpuid_faulting", meta.host.cpuid_faulting},
              {"tsc_trapping", meta.host.tsc_trapping},
              {"pmu_available", meta.host.pmu_available},
              {"cpu_count", meta.host.cpu_count}}},
            {"files", std::move(files)},
            {"system_files", std::move(system_files)}};
}

// Whether the recording's metadata could be read (a recording always has a command).
bool metadata_read(const RecordingSummary& summary) {
    return !summary.meta.argv.empty();
}

// The store's recordings, each whose event stream is damaged flagged with the damage.
std::vector<RecordingSummary> checked_recordings(const RecordingStore& store) {
    std::vector<RecordingSummary> summaries = store.list();
    for (RecordingSummary& summary : summaries) {
        if (summary.problem.empty()) {
            try {
                RecordingReader(summary.directory).check_frames();
            } catch (const Error& damage) {
                summary.problem = damage.what();
            }
        }
    }
    return summaries;
}

void list_recordings(bool as_json) {
    RecordingStore store;
    const auto summaries = checked_recordings(store);
    if (as_json) {
        json rows = json::array();
        for (const auto& summary : summaries) {
            json row = metadata_read(summary) ? meta_json(summary.meta) : json{{"id", summary.meta.id}};
            row["directory"] = summary.directory.string();
            row["size_bytes"] = summary.size_bytes;
            if (!summary.problem.empty()) {
                row["problem"] = summary.problem;
            }
            rows.push_back(std::move(row));
        }
        std::cout << json_text(rows, 2) << '\n';
        return;
    }
    if (summaries.empty()) {
        std::cout << "No recordings in " << store.root().string()
                  << " yet. Make one with 'hermit record start -- cmd'.\n";
        return;
    }
    std::cout << fmt::format("{:<24} {:<12} {:<32} {:<19} {:>10} {:>10} {:>9}\n", "ID", "NAME", "COMMAND",
                             "DATE", "SIZE", "EXIT", "EVENTS");
    for (const auto& summary : summaries) {
        const auto& meta = summary.meta;
        if (!metadata_read(summary)) {
            std::cout << fmt::format("{:<24} {}\n", meta.id, summary.problem);
            continue;
        }
        std::cout << fmt::format("{:<24} {:<12} {:<32} {:<19} {:>10} {:>10} {:>9}\n", shortened(meta.id, 24),
                                 shortened(meta.name, 12),
                                 shortened(fmt::format("{}", fmt::join(meta.argv, " ")), 32),
                                 local_date(meta.started_at_unix_ms), human_size(summary.size_bytes),
                                 summary.problem.empty() ? exit_text(meta) : "DAMAGED", meta.event_count);
        if (!summary.problem.empty()) {
            std::cout << "  " << summary.problem << '\n';
        }
    }
}

void remove_recordings(const std::string& id, bool all) {
    RecordingStore store;
    if (all == !id.empty()) {
        throw Error(ErrorCode::UsageError, "give either a recording id or --all to 'hermit record rm'");
    }
    if (all) {
        const size_t removed = store.remove_all();
        std::cerr << fmt::format("hermit: removed {} recording{} from {}\n", removed, removed == 1 ? "" : "s",
                                 store.root().string());
        return;
    }
    const auto directory = store.resolve(id);
    store.remove(id);
    std::cerr << fmt::format("hermit: removed {}\n", directory.string());
}

void pack(const std::string& id, const std::string& output) {
    RecordingStore store;
    pack_recording(store, id, output);
    std::error_code error;
    std::cerr << fmt::format("hermit: packed {} into {} ({})\n", store.resolve(id).filename().string(),
                             output, human_size(std::filesystem::file_size(output, error)));
}

void unpack(const std::string& input) {
    RecordingStore store;
    const std::string id = unpack_recording(store, input);
    std::cerr << fmt::format("hermit: unpacked {} into {}\n", id, (store.root() / id).string());
}

void collect_garbage() {
    RecordingStore store;
    const size_t removed = store.collect_garbage();
    std::cerr << fmt::format("hermit: removed {} system file{} no recording refers to\n", removed,
                             removed == 1 ? "" : "s");
}

// One line per event, "INDEX: description", like the event table of the GUI.
void dump_events(const std::string& id, uint64_t first, uint64_t count) {
    RecordingStore store;
    RecordingReader reader(store.resolve(id));
    const auto names = tracer_syscall_names();
    const std::vector<Event> events = reader.read_all();
    for (uint64_t index = first; index < events.size() && index - first < count; index++) {
        std::cout << index << ": " << describe_event(events[index], names) << '\n';
    }
}

void show_info(const std::string& id, bool as_json) {
    RecordingStore store;
    const auto directory = store.resolve(id);
    RecordingReader reader(directory);
    const auto& meta = reader.meta();
    const auto statistics = compute_statistics(reader.read_all());
    if (as_json) {
        json info = meta_json(meta);
        info["directory"] = directory.string();
        info["events_by_kind"] = statistics.by_kind;
        json threads = json::array();
        for (const auto& thread : statistics.threads) {
            threads.push_back({{"tid", thread.tid},
                               {"pid", thread.pid},
                               {"events", thread.events},
                               {"syscalls", thread.syscalls},
                               {"schedules", thread.schedules},
                               {"first_time_ns", thread.first_time},
                               {"last_time_ns", thread.last_time}});
        }
        info["threads"] = std::move(threads);
        std::cout << json_text(info, 2) << '\n';
        return;
    }
    std::cout << fmt::format("Recording   {}\n", meta.id);
    std::cout << fmt::format("Directory   {}\n", directory.string());
    std::cout << fmt::format("Name        {}\n", meta.name);
    std::cout << fmt::format("Command     {}\n", fmt::join(meta.argv, " "));
    std::cout << fmt::format("Working dir {}\n", meta.cwd);
    std::cout << fmt::format("Started     {}\n", local_date(meta.started_at_unix_ms));
    std::cout << fmt::format("Status      {}\n",
                             meta.finished ? fmt::format("finished, exit status {}", meta.exit_status)
                                           : std::string("unfinished (hermit stopped mid-run)"));
    std::cout << fmt::format("Guest time  {:.6f} s (logical)\n",
                             static_cast<double>(meta.guest_duration_ns) / 1e9);
    std::cout << fmt::format("Format      version {}, written by hermit {}\n", meta.format_version,
                             meta.hermit_version);
    std::cout << fmt::format(
        "Config      seed {}, epoch {} ns, chaos {}, heuristic {}, pct depth {}, preemption "
        "timeout {}, strict {}, namespaces {}\n",
        meta.config.seed, meta.config.epoch_ns, meta.config.chaos, meta.config.sched_heuristic,
        meta.config.pct_depth, meta.config.preemption_timeout, meta.config.strict, meta.config.namespaces);
    std::cout << fmt::format("Host        kernel {}, {} cpus, cpuid faulting {}, rdtsc trapping {}, pmu {}\n",
                             meta.host.kernel_release, meta.host.cpu_count, meta.host.cpuid_faulting,
                             meta.host.tsc_trapping, meta.host.pmu_available);
    std::cout << fmt::format("Environment {} variables\n", meta.env.size());
    std::cout << fmt::format("Files       {} copied\n", meta.files.size());
    for (const auto& file : meta.files) {
        std::cout << fmt::format("  {} ({}, sha256 {}{})\n", file.path, human_size(file.size), file.sha256,
                                 file.only_read ? ", only read" : "");
    }
    uint64_t system_bytes = 0;
    for (const auto& file : meta.system_files) {
        system_bytes += file.size;
    }
    std::cout << fmt::format("System      {} files ({}) kept in the store's blobs\n",
                             meta.system_files.size(), human_size(system_bytes));
    std::cout << fmt::format("Events      {}\n", statistics.total);
    for (const auto& [kind, count] : statistics.by_kind) {
        std::cout << fmt::format("  {:<14} {}\n", kind, count);
    }
    std::cout << fmt::format("Threads     {}\n", statistics.threads.size());
    std::cout << fmt::format("  {:>8} {:>8} {:>10} {:>10} {:>10}\n", "TID", "PID", "EVENTS", "SYSCALLS",
                             "SCHEDULED");
    for (const auto& thread : statistics.threads) {
        std::cout << fmt::format("  {:>8} {:>8} {:>10} {:>10} {:>10}\n", thread.tid, thread.pid,
                                 thread.events, thread.syscalls, thread.schedules);
    }
}

} // namespace

void add_record_command(CLI::App& app, CommandContext& context) {
    auto* command =
        app.add_subcommand("record", "Record a run, and list, inspect, pack, unpack or remove recordings");
    command->require_subcommand(1);

    auto start_options = std::make_shared<replay::RecordOptions>();
    auto* start = command->add_subcommand("start", "Record the guest command given after --");
    start->add_option("--name", start_options->name,
                      "Name of the recording (default: the command's basename)");
    // The options of `hermit run`, so that anything a run does can be recorded (a seed `hermit search`
    // found, an epoch, strict mode); the recording's metadata stores them.
    auto run_arguments = std::make_shared<RunConfigArguments>();
    add_run_config_options(*start, *run_arguments);
    start->add_option("command", start_options->argv, "The guest command, after --")->required();
    start->callback([&context, start_options, run_arguments] {
        apply_global_options(context.global);
        start_options->config = run_arguments->config();
        context.exit_status = replay::record_start(*start_options);
    });

    auto list_json = std::make_shared<bool>(false);
    auto* list = command->add_subcommand("list", "List recordings, oldest first");
    list->alias("ls"); // rr's spelling
    list->add_flag("--json", *list_json, "Print JSON instead of a table");
    list->callback([&context, list_json] {
        apply_global_options(context.global);
        list_recordings(*list_json);
    });

    struct RemoveArguments {
        std::string id;
        bool all = false;
    };
    auto remove_arguments = std::make_shared<RemoveArguments>();
    auto* remove = command->add_subcommand("rm", "Remove one recording (ID or 'latest') or --all");
    remove->add_option("id", remove_arguments->id, "Recording id or 'latest'");
    remove->add_flag("--all", remove_arguments->all, "Remove every recording");
    remove->callback([&context, remove_arguments] {
        apply_global_options(context.global);
        remove_recordings(remove_arguments->id, remove_arguments->all);
    });

    struct PackArguments {
        std::string id = "latest";
        std::string output;
    };
    auto pack_arguments = std::make_shared<PackArguments>();
    auto* pack_command = command->add_subcommand(
        "pack", "Write a recording and the system files it keeps into one file, for another machine");
    pack_command->add_option("id", pack_arguments->id, "Recording id, 'latest' (default) or a directory");
    pack_command
        ->add_option("-o,--output", pack_arguments->output, "The file to write (an xz-compressed tar)")
        ->required();
    pack_command->callback([&context, pack_arguments] {
        apply_global_options(context.global);
        pack(pack_arguments->id, pack_arguments->output);
    });

    auto unpack_input = std::make_shared<std::string>();
    auto* unpack_command = command->add_subcommand(
        "unpack", "Add a recording written by 'hermit record pack' to this machine's");
    unpack_command->add_option("file", *unpack_input, "The file 'hermit record pack' wrote")->required();
    unpack_command->callback([&context, unpack_input] {
        apply_global_options(context.global);
        unpack(*unpack_input);
    });

    auto* gc = command->add_subcommand("gc", "Remove the kept system files that no recording refers to");
    gc->callback([&context] {
        apply_global_options(context.global);
        collect_garbage();
    });

    struct InfoArguments {
        std::string id = "latest";
        bool json = false;
    };
    auto info_arguments = std::make_shared<InfoArguments>();
    auto* info = command->add_subcommand("info", "Show a recording's metadata, event counts and threads");
    info->add_option("id", info_arguments->id, "Recording id, 'latest' (default) or a directory");
    info->add_flag("--json", info_arguments->json, "Print JSON");
    info->callback([&context, info_arguments] {
        apply_global_options(context.global);
        show_info(info_arguments->id, info_arguments->json);
    });

    struct DumpArguments {
        std::string id = "latest";
        uint64_t first = 0;
        uint64_t count = UINT64_MAX;
    };
    auto dump_arguments = std::make_shared<DumpArguments>();
    auto* dump =
        command->add_subcommand("dump", "Print a recording's events, one per line, with their index");
    dump->add_option("id", dump_arguments->id, "Recording id, 'latest' (default) or a directory");
    dump->add_option("--from", dump_arguments->first, "Index of the first event to print");
    dump->add_option("--count", dump_arguments->count, "Print at most this many events");
    dump->callback([&context, dump_arguments] {
        apply_global_options(context.global);
        dump_events(dump_arguments->id, dump_arguments->first, dump_arguments->count);
    });
}

} // namespace hermit::cli
