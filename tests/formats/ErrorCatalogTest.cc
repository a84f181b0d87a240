// docs/ERROR_CATALOG.md must list every error of formats/ErrorCatalog.def with the same exit status and text.
#include "formats/Error.h"

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <string>

namespace {

struct CatalogRow {
    int exit_status;
    std::string message;
};

// Rows look like: | E031 | 3 | `recording '{}' is corrupt: {}` |
std::map<std::string, CatalogRow> read_markdown_catalog() {
    std::ifstream in(std::string(HERMIT_SOURCE_DIR) + "/docs/ERROR_CATALOG.md");
    std::map<std::string, CatalogRow> rows;
    const std::regex row(R"(^\|\s*(E\d{3})\s*\|\s*(\d+)\s*\|\s*`(.*)`\s*\|)");
    std::string line;
    while (std::getline(in, line)) {
        std::smatch match;
        if (std::regex_search(line, match, row)) {
            rows[match[1]] = {std::stoi(match[2]), match[3]};
        }
    }
    return rows;
}

TEST(ErrorCatalog, MarkdownMatchesCode) {
    auto documented = read_markdown_catalog();
    ASSERT_FALSE(documented.empty()) << "docs/ERROR_CATALOG.md has no rows";
    for (const auto& info : hermit::all_errors()) {
        auto found = documented.find(std::string(info.code));
        ASSERT_NE(found, documented.end()) << info.code << " is missing from docs/ERROR_CATALOG.md";
        EXPECT_EQ(found->second.exit_status, info.exit_status) << info.code;
        EXPECT_EQ(found->second.message, info.message_template) << info.code;
        documented.erase(found);
    }
    for (const auto& [code, row] : documented) {
        ADD_FAILURE() << code << " is documented but not in formats/ErrorCatalog.def";
    }
}

TEST(ErrorCatalog, CodesAreUniqueAndExitStatusesNonZero) {
    std::map<std::string_view, int> seen;
    for (const auto& info : hermit::all_errors()) {
        EXPECT_EQ(seen[info.code]++, 0) << info.code << " used twice";
        EXPECT_NE(info.exit_status, 0) << info.code;
    }
}

TEST(ErrorCatalog, MessageNamesCodeAndArguments) {
    hermit::Error error(hermit::ErrorCode::RecordingNotFound, "abc");
    EXPECT_STREQ(error.what(), "hermit: error[E030]: no recording 'abc' (see 'hermit record list')");
    EXPECT_EQ(error.exit_status(), 3);
}

} // namespace
