#include "RaceReport.h"
#include "formats/JsonText.h"

#include "tracer/SyscallTable.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace hermit::replay {

namespace {

std::string syscall_name(int number) {
    const tracer::SyscallRow* row = tracer::find_syscall(number);
    return row != nullptr ? std::string(row->name) : fmt::format("syscall {}", number);
}

std::string indented_stack(const std::vector<tracer::StackFrame>& frames) {
    if (frames.empty()) {
        return "       (no stack: the thread could not be unwound)\n";
    }
    std::string text;
    for (size_t index = 0; index < frames.size(); ++index) {
        text += fmt::format("       #{} {:#x} in {} at {}\n", index, frames[index].pc, frames[index].function,
                            frames[index].location);
    }
    return text;
}

std::string where_it_starts(const ThreadPosition& position) {
    return position.syscall ? "resumes after its " + syscall_name(*position.syscall) + " (scheduling point)"
                            : "starts running";
}

std::string where_it_ends(const RacingStep& step) {
    if (!step.end_reason) {
        return "     runs until the program ends\n";
    }
    if (*step.end_reason == ScheduleEvent::Reason::Exited) {
        return "     runs until the thread exits\n";
    }
    std::string text = fmt::format(
        "     runs until its next scheduling point ({}{}):\n", schedule_reason_name(*step.end_reason),
        step.end && step.end->syscall ? " at " + syscall_name(*step.end->syscall) : "");
    return text + indented_stack(step.end ? step.end->stack : std::vector<tracer::StackFrame>{});
}

std::string step_text(int number, const RacingStep& step, const std::string& runs_first_in) {
    return fmt::format("  {}. thread {} (runs first in the {}): {}\n", number, step.tid, runs_first_in,
                       where_it_starts(step.start)) +
           indented_stack(step.start.stack) + where_it_ends(step);
}

nlohmann::ordered_json position_json(const ThreadPosition& position) {
    nlohmann::ordered_json frames = nlohmann::ordered_json::array();
    for (const auto& frame : position.stack) {
        frames.push_back({{"pc", frame.pc}, {"function", frame.function}, {"location", frame.location}});
    }
    return {{"syscall", position.syscall ? nlohmann::ordered_json(syscall_name(*position.syscall))
                                         : nlohmann::ordered_json(nullptr)},
            {"stack", frames}};
}

nlohmann::ordered_json step_json(const RacingStep& step, const std::string& runs_first_in) {
    return {{"tid", step.tid},
            {"runs_first_in", runs_first_in},
            {"start", position_json(step.start)},
            {"end", step.end ? position_json(*step.end) : nlohmann::ordered_json(nullptr)},
            {"end_reason", step.end_reason ? nlohmann::ordered_json(schedule_reason_name(*step.end_reason))
                                           : nlohmann::ordered_json(nullptr)}};
}

} // namespace

std::string race_report_text(const RaceAnalysisResult& result, const RaceReportLabels& labels) {
    std::string text =
        fmt::format("failing schedule ({}): exit status {}\npassing schedule ({}): exit status {}\n",
                    labels.failing, result.failing_status, labels.passing, result.passing_status);
    text += fmt::format("deciding point: scheduling decision {} of {} (event {}), runnable threads [{}]\n",
                        result.decision + 1, result.failing_decisions, result.event_index,
                        fmt::join(result.runnable, ", "));
    text += fmt::format(
        "  thread {} first fails (exit status {}); thread {} first passes (exit status {}){}\n",
        result.failing_first.tid, result.failing_status, result.passing_first.tid, result.passing_status,
        result.swap_confirmed ? ", confirmed by swapping the two steps"
                              : "; swapping the two steps alone did not pass");
    text += "racing pair:\n";
    text += step_text(1, result.failing_first, "failing schedule");
    text += step_text(2, result.passing_first, "passing schedule");
    text += fmt::format("({} runs)\n", result.runs);
    return text;
}

std::string race_report_json(const RaceAnalysisResult& result, const RaceReportLabels& labels) {
    nlohmann::ordered_json document = {
        {"failing",
         {{"schedule", labels.failing},
          {"exit_status", result.failing_status},
          {"decisions", result.failing_decisions}}},
        {"passing", {{"schedule", labels.passing}, {"exit_status", result.passing_status}}},
        {"deciding_decision",
         {{"index", result.decision},
          {"event_index", result.event_index},
          {"runnable", result.runnable},
          {"failing_choice", result.failing_first.tid},
          {"passing_choice", result.passing_first.tid}}},
        {"racing_pair",
         {step_json(result.failing_first, "failing schedule"),
          step_json(result.passing_first, "passing schedule")}},
        {"swap_confirmed", result.swap_confirmed},
        {"runs", result.runs}};
    return json_text(document, 2) + "\n";
}

} // namespace hermit::replay
