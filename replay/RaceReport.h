#pragma once
// How `hermit analyze` shows a RaceAnalysisResult: a text report for people and a JSON document for tools.

#include "RaceAnalysis.h"

#include <string>

namespace hermit::replay {

// Names the two schedules in the report, e.g. "random seed 7" and "round-robin".
struct RaceReportLabels {
    std::string failing;
    std::string passing;
};

std::string race_report_text(const RaceAnalysisResult& result, const RaceReportLabels& labels);

// {failing: {schedule, exit_status, decisions}, passing: {schedule, exit_status},
//  deciding_decision: {index, event_index, runnable, failing_choice, passing_choice},
//  racing_pair: [{tid, runs_first_in, start: {syscall, stack: [{pc, function, location}]}, end, end_reason}],
//  swap_confirmed, runs}
std::string race_report_json(const RaceAnalysisResult& result, const RaceReportLabels& labels);

} // namespace hermit::replay
