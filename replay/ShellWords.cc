#include "ShellWords.h"

namespace hermit::replay {

namespace {

bool is_safe_character(char character) {
    if ((character >= 'a' && character <= 'z') || (character >= 'A' && character <= 'Z') ||
        (character >= '0' && character <= '9')) {
        return true;
    }
    return std::string_view("_-./=:,+@%").find(character) != std::string_view::npos;
}

} // namespace

std::string shell_quote(std::string_view word) {
    bool safe = !word.empty();
    for (char character : word) {
        safe = safe && is_safe_character(character);
    }
    if (safe) {
        return std::string(word);
    }
    std::string quoted = "'";
    for (char character : word) {
        if (character == '\'') {
            quoted += "'\\''";
        } else {
            quoted += character;
        }
    }
    return quoted + "'";
}

std::string shell_join(const std::vector<std::string>& words) {
    std::string joined;
    for (const auto& word : words) {
        if (!joined.empty()) {
            joined += ' ';
        }
        joined += shell_quote(word);
    }
    return joined;
}

} // namespace hermit::replay
