// The order-violation example under hermit: the default schedule passes every time, `hermit search`
// finds failing chaos seeds, a failing seed fails again on every rerun, and `hermit analyze` names the
// writer and the reader as the racing pair.
#include "HermitProcess.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <regex>

namespace hermit::testing {
namespace {

// The examples are built next to the guests: build/examples/ beside build/guests/.
std::string example_path(const std::string& name) {
    std::string guests = guest_path("");
    guests.pop_back();
    return guests.substr(0, guests.rfind('/')) + "/examples/" + name;
}

// The first "seed N:" line of a search report, or 0.
uint64_t first_failing_seed(const std::string& report) {
    std::smatch match;
    const std::regex seed_line(R"(seed (\d+): exit status)");
    return std::regex_search(report, match, seed_line) ? std::stoull(match[1]) : 0;
}

TEST(ChaosIntegrationTest, OrderViolationPassesWithoutChaos) {
    for (int run = 0; run < 10; ++run) {
        auto result = run_process({hermit_binary(), "run", "--", example_path("order_violation")});
        ASSERT_EQ(result.exit_status, 0) << result.stdout_text << result.stderr_text;
        EXPECT_EQ(result.stdout_text, "hello\n");
    }
}

void expect_search_finds_reproducible_seed(const std::string& heuristic) {
    auto search = run_process({hermit_binary(), "search", "--seeds=1..200", "-j2", "--until-first",
                               "--sched-heuristic=" + heuristic, "--", example_path("order_violation")},
                              "", 600);
    ASSERT_EQ(search.exit_status, 0) << search.stderr_text;
    EXPECT_NE(search.stdout_text.find("baseline (no chaos): exit status 0"), std::string::npos)
        << search.stdout_text;
    const uint64_t seed = first_failing_seed(search.stdout_text);
    ASSERT_NE(seed, 0u) << search.stdout_text;
    EXPECT_NE(search.stdout_text.find("reproduce: hermit run --chaos --sched-heuristic=" + heuristic +
                                      " --seed=" + std::to_string(seed)),
              std::string::npos);
    for (int run = 0; run < 5; ++run) {
        auto rerun = run_process({hermit_binary(), "run", "--chaos", "--sched-heuristic=" + heuristic,
                                  "--seed=" + std::to_string(seed), "--", example_path("order_violation")});
        EXPECT_EQ(rerun.exit_status, 1) << "seed " << seed << ": " << rerun.stderr_text;
        EXPECT_EQ(rerun.stdout_text, "ERROR! global_str is null at use.\n");
    }
}

TEST(ChaosIntegrationTest, RandomSearchFindsASeedThatFailsEveryTime) {
    expect_search_finds_reproducible_seed("random");
}

TEST(ChaosIntegrationTest, PctSearchFindsASeedThatFailsEveryTime) {
    expect_search_finds_reproducible_seed("pct");
}

// Seeds 1..30 of the random heuristic split into failing and passing ones, from `hermit search --json`.
struct SeedSplit {
    uint64_t failing = 0;
    uint64_t passing = 0;
};

SeedSplit random_seed_split() {
    const std::string json_path = ::testing::TempDir() + "chaos_search_" + std::to_string(getpid()) + ".json";
    auto search = run_process({hermit_binary(), "search", "--seeds=1..30", "-j2", "--json=" + json_path, "--",
                               example_path("order_violation")},
                              "", 300);
    EXPECT_EQ(search.exit_status, 0) << search.stderr_text;
    std::ifstream in(json_path);
    const auto document = nlohmann::json::parse(in);
    std::remove(json_path.c_str());
    std::vector<uint64_t> failing;
    for (const auto& failure : document["failures"]) {
        failing.push_back(failure["seed"].get<uint64_t>());
    }
    SeedSplit split;
    if (!failing.empty()) {
        split.failing = failing.front();
    }
    for (uint64_t seed = 1; seed <= 30 && split.passing == 0; ++seed) {
        if (std::find(failing.begin(), failing.end(), seed) == failing.end()) {
            split.passing = seed;
        }
    }
    return split;
}

// The frame of `function` in a racing step's stack, as JSON, or null.
nlohmann::json frame_of(const nlohmann::json& stack, const std::string& function) {
    for (const auto& frame : stack) {
        if (frame["function"] == function) {
            return frame;
        }
    }
    return nullptr;
}

TEST(ChaosIntegrationTest, AnalyzeNamesTheWriterAndTheReaderAsTheRacingPair) {
    const SeedSplit seeds = random_seed_split();
    ASSERT_NE(seeds.failing, 0u) << "no failing seed in 1..30";
    const std::string json_path =
        ::testing::TempDir() + "chaos_analyze_" + std::to_string(getpid()) + ".json";
    auto analyze = run_process({hermit_binary(), "analyze", "--fail-seed=" + std::to_string(seeds.failing),
                                "--json=" + json_path, "--", example_path("order_violation")},
                               "", 300);
    ASSERT_EQ(analyze.exit_status, 0) << analyze.stdout_text << analyze.stderr_text;
    const std::string& report = analyze.stdout_text;
    // The guest's own output is not part of the report.
    EXPECT_EQ(report.find("ERROR! global_str"), std::string::npos) << report;
    EXPECT_NE(report.find("passing schedule (round-robin, no chaos): exit status 0"), std::string::npos)
        << report;
    std::smatch reader_line, writer_line;
    ASSERT_TRUE(
        std::regex_search(report, reader_line, std::regex(R"(in reader at order_violation\.c:(\d+))")))
        << report;
    ASSERT_TRUE(
        std::regex_search(report, writer_line, std::regex(R"(in writer at order_violation\.c:(\d+))")))
        << report;
    // The reader, which runs first in the failing schedule, is listed first.
    EXPECT_LT(reader_line.position(0), writer_line.position(0)) << report;
    EXPECT_NE(reader_line[1], writer_line[1]);

    std::ifstream in(json_path);
    const auto document = nlohmann::json::parse(in);
    std::remove(json_path.c_str());
    EXPECT_EQ(document["failing"]["exit_status"], 1);
    EXPECT_EQ(document["passing"]["exit_status"], 0);
    const auto& deciding = document["deciding_decision"];
    EXPECT_NE(deciding["failing_choice"], deciding["passing_choice"]);
    EXPECT_LT(deciding["index"].get<uint64_t>(), document["failing"]["decisions"].get<uint64_t>());
    EXPECT_TRUE(document["swap_confirmed"].get<bool>());
    const auto& pair = document["racing_pair"];
    ASSERT_EQ(pair.size(), 2u);
    EXPECT_EQ(pair[0]["tid"], deciding["failing_choice"]);
    EXPECT_EQ(pair[1]["tid"], deciding["passing_choice"]);
    const auto reader = frame_of(pair[0]["start"]["stack"], "reader");
    const auto writer = frame_of(pair[1]["start"]["stack"], "writer");
    ASSERT_FALSE(reader.is_null()) << pair[0].dump(2);
    ASSERT_FALSE(writer.is_null()) << pair[1].dump(2);
    EXPECT_EQ(reader["location"], "order_violation.c:" + reader_line[1].str());
    EXPECT_EQ(writer["location"], "order_violation.c:" + writer_line[1].str());
}

TEST(ChaosIntegrationTest, AnalyzeRejectsAMissingOrPassingSeed) {
    auto missing = run_process({hermit_binary(), "analyze", "--", example_path("order_violation")});
    EXPECT_EQ(missing.exit_status, 2);
    EXPECT_NE(missing.stderr_text.find("error[E073]"), std::string::npos) << missing.stderr_text;

    const SeedSplit seeds = random_seed_split();
    ASSERT_NE(seeds.passing, 0u) << "every seed in 1..30 fails";
    auto passing = run_process({hermit_binary(), "analyze", "--fail-seed=" + std::to_string(seeds.passing),
                                "--", example_path("order_violation")});
    EXPECT_EQ(passing.exit_status, 5);
    EXPECT_NE(
        passing.stderr_text.find("error[E074]: seed " + std::to_string(seeds.passing) + " does not fail"),
        std::string::npos)
        << passing.stderr_text;
}

} // namespace
} // namespace hermit::testing
