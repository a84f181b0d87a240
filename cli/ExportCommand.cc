#include "Commands.h"
#include "SyscallNameLookup.h"

#include "formats/PerfettoExport.h"
#include "formats/Recording.h"
#include "formats/RecordingStore.h"

#include <fmt/format.h>

#include <iostream>
#include <memory>
#include <string>

namespace hermit::cli {

namespace {

struct ExportArguments {
    std::string recording = "latest";
    std::string format = "perfetto";
    std::string output;
};

void run_export(const ExportArguments& arguments) {
    RecordingStore store;
    RecordingReader reader(store.resolve(arguments.recording));
    const auto events = reader.read_all();
    const auto trace = perfetto_trace(reader.meta(), events, tracer_syscall_names());
    write_perfetto_trace(trace, arguments.output);
    if (arguments.output != "-") {
        std::cerr << fmt::format(
            "hermit: exported {} ({} events) to {}; open it in https://ui.perfetto.dev\n", reader.meta().id,
            events.size(), arguments.output);
    }
}

} // namespace

void add_export_command(CLI::App& app, CommandContext& context) {
    auto arguments = std::make_shared<ExportArguments>();
    auto* command = app.add_subcommand("export", "Export a recording for other tools");
    command->add_option("recording", arguments->recording, "Recording id, 'latest' (default) or directory");
    command->add_option("--format", arguments->format, "Output format")
        ->check(CLI::IsMember({"perfetto"}))
        ->default_str("perfetto");
    command->add_option("-o,--output", arguments->output, "Output file ('-' for stdout)")->required();
    command->callback([&context, arguments] {
        apply_global_options(context.global);
        run_export(*arguments);
    });
}

} // namespace hermit::cli
