// The order-violation example under hermit: the default schedule passes every time, `hermit search`
// finds failing chaos seeds, and a failing seed fails again on every rerun.
#include "HermitProcess.h"

#include <gtest/gtest.h>

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

} // namespace
} // namespace hermit::testing
