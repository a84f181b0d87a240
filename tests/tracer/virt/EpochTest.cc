#include "tracer/virt/Epoch.h"

#include "formats/Error.h"

#include <gtest/gtest.h>

namespace hermit::tracer::virt {
namespace {

TEST(EpochTest, ParsesSecondsSince1970) {
    EXPECT_EQ(parse_epoch("0"), 0);
    EXPECT_EQ(parse_epoch("946684800"), 946684800LL * 1000000000LL);
}

TEST(EpochTest, ParsesUtcDateAndTime) {
    EXPECT_EQ(parse_epoch("2000-01-01T00:00:00Z"), 946684800LL * 1000000000LL);
    EXPECT_EQ(parse_epoch("1970-01-01T00:00:01Z"), 1000000000LL);
    EXPECT_EQ(parse_epoch("2024-02-29T12:34:56Z"), 1709210096LL * 1000000000LL);
}

TEST(EpochTest, RejectsMalformedInputWithBadEpoch) {
    for (const char* text :
         {"", "-1", "+5", "12abc", "2000-01-01", "2000-01-01 00:00:00Z", "2001-02-29T00:00:00Z",
          "2000-13-01T00:00:00Z", "2000-01-01T24:00:00Z", "1969-12-31T23:59:59Z", "99999999999999999999"}) {
        try {
            parse_epoch(text);
            ADD_FAILURE() << "accepted '" << text << "'";
        } catch (const Error& error) {
            EXPECT_EQ(error.code(), ErrorCode::BadEpoch) << text;
        }
    }
}

} // namespace
} // namespace hermit::tracer::virt
