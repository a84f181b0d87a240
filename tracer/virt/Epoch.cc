#include "Epoch.h"

#include "formats/Error.h"

#include <charconv>
#include <optional>
#include <string>

namespace hermit::tracer::virt {
namespace {

std::optional<int64_t> parse_digits(std::string_view text) {
    if (text.empty()) {
        return std::nullopt;
    }
    int64_t value = 0;
    auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || text.front() == '-' ||
        text.front() == '+') {
        return std::nullopt;
    }
    return value;
}

// Days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's civil-from-days inverse).
int64_t days_from_civil(int64_t year, int64_t month, int64_t day) {
    year -= month <= 2 ? 1 : 0;
    const int64_t era = (year >= 0 ? year : year - 399) / 400;
    const int64_t year_of_era = year - era * 400;
    const int64_t day_of_year = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
    const int64_t day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    return era * 146097 + day_of_era - 719468;
}

bool leap_year(int64_t year) {
    return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int64_t days_in_month(int64_t year, int64_t month) {
    static constexpr int64_t kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return month == 2 && leap_year(year) ? 29 : kDays[month - 1];
}

std::optional<int64_t> parse_date_time(std::string_view text) {
    // YYYY-MM-DDTHH:MM:SSZ
    if (text.size() != 20 || text[4] != '-' || text[7] != '-' || text[10] != 'T' || text[13] != ':' ||
        text[16] != ':' || text[19] != 'Z') {
        return std::nullopt;
    }
    auto year = parse_digits(text.substr(0, 4));
    auto month = parse_digits(text.substr(5, 2));
    auto day = parse_digits(text.substr(8, 2));
    auto hour = parse_digits(text.substr(11, 2));
    auto minute = parse_digits(text.substr(14, 2));
    auto second = parse_digits(text.substr(17, 2));
    if (!year || !month || !day || !hour || !minute || !second) {
        return std::nullopt;
    }
    if (*year < 1970 || *month < 1 || *month > 12 || *day < 1 || *day > days_in_month(*year, *month) ||
        *hour > 23 || *minute > 59 || *second > 59) {
        return std::nullopt;
    }
    return days_from_civil(*year, *month, *day) * 86400 + *hour * 3600 + *minute * 60 + *second;
}

} // namespace

int64_t parse_epoch(std::string_view text) {
    std::optional<int64_t> seconds = parse_digits(text);
    if (!seconds) {
        seconds = parse_date_time(text);
    }
    // Keep the nanosecond value (and a run of years after it) inside int64_t.
    constexpr int64_t kMaxSeconds = 9000000000LL;
    if (!seconds || *seconds > kMaxSeconds) {
        throw Error(ErrorCode::BadEpoch, std::string(text));
    }
    return *seconds * 1000000000LL;
}

} // namespace hermit::tracer::virt
