#pragma once
// ShellWords: renders argument vectors as POSIX shell text, for the reproduction commands that
// `hermit search` prints and for the scripts in the Kubernetes Job it emits. Words made only of safe
// characters stay bare so the common case reads naturally; anything else is single-quoted.

#include <string>
#include <string_view>
#include <vector>

namespace hermit::replay {

// One word as the shell must see it: `./a.out` stays as is, `it's` becomes `'it'\''s'`.
std::string shell_quote(std::string_view word);
// The words quoted and joined by single spaces.
std::string shell_join(const std::vector<std::string>& words);

} // namespace hermit::replay
