#include "Commands.h"
#include "SyscallNameLookup.h"
#include "formats/JsonText.h"

#include "formats/Error.h"
#include "formats/Recording.h"
#include "formats/RecordingStore.h"
#include "formats/ScheduleDiff.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>
#include <string>

namespace hermit::cli {

namespace {

using nlohmann::json;

struct DiffArguments {
    std::string a;
    std::string b;
    bool json = false;
};

json event_json(const std::optional<Event>& event, const SyscallNameLookup& names) {
    if (!event) {
        return nullptr;
    }
    return {{"kind", event_kind_name(event->payload)},
            {"tid", event->tid},
            {"pid", event->pid},
            {"time_ns", event->time},
            {"description", describe_event(*event, names)}};
}

int run_diff(const DiffArguments& arguments) {
    RecordingStore store;
    RecordingReader reader_a(store.resolve(arguments.a));
    RecordingReader reader_b(store.resolve(arguments.b));
    const auto result = diff_events(reader_a.read_all(), reader_b.read_all());
    const auto names = tracer_syscall_names();
    const int differ_status = error_info(ErrorCode::VerifyDiverged).exit_status;

    if (arguments.json) {
        json threads = json::array();
        for (const auto& thread : result.threads) {
            threads.push_back(
                {{"tid", thread.tid}, {"events_a", thread.events_a}, {"events_b", thread.events_b}});
        }
        json output = {{"identical", result.identical()},
                       {"a", {{"id", reader_a.meta().id}, {"events", result.events_a}}},
                       {"b", {{"id", reader_b.meta().id}, {"events", result.events_b}}},
                       {"threads", std::move(threads)},
                       {"divergence", nullptr}};
        if (result.divergence) {
            output["divergence"] = {{"index", result.divergence->index},
                                    {"reason", result.divergence->reason},
                                    {"a", event_json(result.divergence->a, names)},
                                    {"b", event_json(result.divergence->b, names)}};
        }
        std::cout << json_text(output, 2) << '\n';
        return result.identical() ? 0 : differ_status;
    }

    std::cout << fmt::format("A: {} ({} events)\nB: {} ({} events)\n", reader_a.meta().id, result.events_a,
                             reader_b.meta().id, result.events_b);
    std::cout << fmt::format("{:>8} {:>10} {:>10}\n", "TID", "EVENTS A", "EVENTS B");
    for (const auto& thread : result.threads) {
        std::cout << fmt::format("{:>8} {:>10} {:>10}{}\n", thread.tid, thread.events_a, thread.events_b,
                                 thread.events_a == thread.events_b ? "" : "  *");
    }
    if (result.identical()) {
        std::cout << fmt::format("The recordings are identical ({} events).\n", result.events_a);
        return 0;
    }
    std::cout << fmt::format("First divergence at event {}: {}\n", result.divergence->index,
                             describe_divergence(*result.divergence, names));
    return differ_status;
}

} // namespace

void add_diff_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<DiffArguments>();
    auto* command = app.add_subcommand("diff", "Compare the event streams of two recordings");
    command->add_option("a", arguments->a, "First recording: id, 'latest' or directory")->required();
    command->add_option("b", arguments->b, "Second recording: id, 'latest' or directory")->required();
    command->add_flag("--json", arguments->json, "Print the comparison as JSON");
    command->footer("Exit status 0 when the recordings have equivalent events, 5 when they diverge.");
    command->callback([&context, arguments] {
        apply_global_options(context.global);
        context.exit_status = run_diff(*arguments);
    });
}

} // namespace hermit::cli
