#include "replay/SeedSearch.h"

#include "formats/Error.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace hermit::replay {
namespace {

SeedSearchOptions oracle_options(SeedRange seeds, unsigned jobs) {
    SeedSearchOptions options;
    options.seeds = seeds;
    options.jobs = jobs;
    options.hermit_binary = std::string(SEARCH_TEST_DATA_DIR) + "/seed_oracle.sh";
    options.command = {"./order_violation"};
    return options;
}

TEST(SeedRangeTest, ParsesOneSeedAndRanges) {
    EXPECT_EQ(parse_seed_range("5"), (SeedRange{5, 5}));
    EXPECT_EQ(parse_seed_range("1..1000"), (SeedRange{1, 1000}));
    EXPECT_EQ(parse_seed_range("0..0"), (SeedRange{0, 0}));
    EXPECT_EQ(parse_seed_range("1..1000").count(), 1000u);
    EXPECT_EQ(parse_seed_range("18446744073709551615"), (SeedRange{UINT64_MAX, UINT64_MAX}));
}

TEST(SeedRangeTest, RejectsMalformedRangesWithE070) {
    for (const char* text : {"", "a", "5..1", "1..", "..3", "-1", "1...3", " 1", "1..2..3", "1-3", "+4",
                             "99999999999999999999", "0..18446744073709551615"}) {
        try {
            parse_seed_range(text);
            ADD_FAILURE() << "accepted '" << text << "'";
        } catch (const Error& error) {
            EXPECT_EQ(error.code(), ErrorCode::BadSeedRange) << text;
            EXPECT_EQ(error.exit_status(), 2);
        }
    }
}

TEST(SeedSearchTest, RunArgumentsAndReproductionCommand) {
    auto options = oracle_options({1, 10}, 1);
    options.command = {"./order_violation", "two words"};
    SeedSearch random_search(options);
    EXPECT_EQ(
        random_search.run_arguments(std::nullopt),
        (std::vector<std::string>{options.hermit_binary, "run", "--", "./order_violation", "two words"}));
    EXPECT_EQ(random_search.reproduction_command(17),
              "hermit run --chaos --sched-heuristic=random --seed=17 -- ./order_violation 'two words'");

    options.heuristic = "pct";
    options.pct_depth = 2;
    EXPECT_EQ(SeedSearch(options).reproduction_command(4),
              "hermit run --chaos --sched-heuristic=pct --seed=4 --pct-depth=2 -- ./order_violation "
              "'two words'");
}

TEST(SeedSearchTest, FindsEveryFailingSeedInParallel) {
    std::vector<SeedSearchProgress> reports;
    auto result = SeedSearch(oracle_options({1, 30}, 2)).run([&](const SeedSearchProgress& progress) {
        reports.push_back(progress);
    });
    EXPECT_EQ(result.baseline_status, 0);
    EXPECT_EQ(result.heuristic, "random");
    EXPECT_EQ(result.seeds_run, 30u);
    std::vector<uint64_t> failing;
    for (const auto& failure : result.failures) {
        failing.push_back(failure.seed);
        EXPECT_EQ(failure.exit_status, 1);
        EXPECT_EQ(failure.stdout_text, "seed " + std::to_string(failure.seed) + " failed\n");
        EXPECT_EQ(failure.stderr_text, "diagnostics for seed " + std::to_string(failure.seed) + "\n");
    }
    EXPECT_EQ(failing, (std::vector<uint64_t>{7, 14, 21, 28}));
    ASSERT_FALSE(reports.empty());
    EXPECT_EQ(reports.back().done, 30u);
    EXPECT_EQ(reports.back().total, 30u);
    EXPECT_EQ(reports.back().failures, 4u);
}

TEST(SeedSearchTest, UntilFirstStopsAtTheLowestFailingSeedWhateverTheParallelism) {
    for (unsigned jobs : {1u, 2u, 5u}) {
        auto result = SeedSearch([&] {
                          auto options = oracle_options({3, 40}, jobs);
                          options.until_first = true;
                          return options;
                      }())
                          .run();
        ASSERT_EQ(result.failures.size(), 1u) << jobs;
        EXPECT_EQ(result.failures.front().seed, 7u);
        EXPECT_EQ(result.seeds_run, 5u);
    }
}

TEST(SeedSearchTest, NoFailuresWhenEverySeedMatchesTheBaseline) {
    auto result = SeedSearch(oracle_options({1, 6}, 2)).run();
    EXPECT_TRUE(result.failures.empty());
    EXPECT_EQ(result.seeds_run, 6u);
}

TEST(SeedSearchTest, RunPastTheTimeoutIsKilledAndCountsAsFailure) {
    auto options = oracle_options({1000, 1000}, 1);
    options.timeout_seconds = 1;
    auto result = SeedSearch(options).run();
    ASSERT_EQ(result.failures.size(), 1u);
    EXPECT_EQ(result.failures.front().exit_status, -1);
}

TEST(SeedSearchTest, MissingHermitBinaryFailsEverySeedWith127) {
    auto options = oracle_options({1, 2}, 1);
    options.hermit_binary = "/nonexistent/hermit";
    auto result = SeedSearch(options).run();
    EXPECT_EQ(result.baseline_status, 127);
    EXPECT_TRUE(result.failures.empty());
}

TEST(SearchResultJsonTest, HasTheDocumentedFieldsAndTruncatesStderr) {
    SeedSearchResult result;
    result.baseline_status = 0;
    result.heuristic = "pct";
    result.seeds_run = 12;
    result.failures.push_back({9, 1, "out\n", std::string(100, 'a') + "tail"});
    auto document = nlohmann::json::parse(search_result_json(result, 10));
    EXPECT_EQ(document["baseline_status"], 0);
    EXPECT_EQ(document["heuristic"], "pct");
    EXPECT_EQ(document["seeds_run"], 12);
    ASSERT_EQ(document["failures"].size(), 1u);
    EXPECT_EQ(document["failures"][0]["seed"], 9);
    EXPECT_EQ(document["failures"][0]["exit_status"], 1);
    EXPECT_EQ(document["failures"][0]["stdout"], "out\n");
    EXPECT_EQ(document["failures"][0]["stderr"], "aaaaaatail");
}

TEST(SearchResultJsonTest, InvalidUtf8InGuestOutputDoesNotBreakTheDocument) {
    SeedSearchResult result;
    result.failures.push_back({1, 2, "\xff\xfe", ""});
    EXPECT_NO_THROW(nlohmann::json::parse(search_result_json(result)));
}

} // namespace
} // namespace hermit::replay
