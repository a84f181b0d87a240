// `hermit run --verify` on a deterministic guest: both runs agree, and the JSON comparison says so.

#include "replay/Verify.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace hermit::replay {
namespace {

TEST(Verify, DeterministicGuestRunsIdenticallyTwice) {
    char pattern[] = "/tmp/hermit-verify-XXXXXX";
    ASSERT_NE(mkdtemp(pattern), nullptr);
    const std::filesystem::path directory = pattern;
    const auto input = directory / "input.txt";
    std::ofstream(input) << "verify input";
    // Both runs read the same stdin snapshot; give them an empty one.
    int saved_stdin = dup(0);
    int null_input = open("/dev/null", O_RDONLY);
    dup2(null_input, 0);
    close(null_input);

    VerifyOptions options;
    options.argv = {std::string(HERMIT_GUEST_DIR) + "/replay_inputs", input.string()};
    options.json_path = (directory / "verify.json").string();
    const int status = verify_run(options);
    dup2(saved_stdin, 0);
    close(saved_stdin);
    EXPECT_EQ(status, 7);

    std::ifstream stream(options.json_path);
    const nlohmann::json json = nlohmann::json::parse(stream);
    EXPECT_TRUE(json["identical"].get<bool>());
    EXPECT_EQ(json["events"][0], json["events"][1]);
    EXPECT_GT(json["events"][0].get<uint64_t>(), 10u);
    EXPECT_TRUE(json["first_difference"].is_null());
    std::filesystem::remove_all(directory);
}

} // namespace
} // namespace hermit::replay
