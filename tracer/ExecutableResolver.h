#pragma once
// Finds the guest's program the way execvp would, before anything is forked, so a missing or
// non-executable command is a clear hermit::Error (E003/E004) instead of a failed child.

#include <string>
#include <vector>

namespace hermit::tracer {

// `name` containing a '/' is used as is; otherwise each directory of `search_path` (PATH syntax, empty
// entries meaning the current directory) is tried in order. Returns the path to execute. Relative paths
// are looked for in `working_directory` (empty: hermit's), where the guest will exec them.
std::string resolve_executable(const std::string& name, const std::string& search_path,
                               const std::string& working_directory = "");

// Whether `path` is a 32-bit ELF program, which hermit does not run (its system calls would reach the
// 64-bit table's numbers).
bool is_32_bit_program(const std::string& path);

// The PATH of an environment of "NAME=value" entries (the first one), or "/usr/bin:/bin" when it sets
// none, as execvp searches.
std::string search_path_of(const std::vector<std::string>& env);

} // namespace hermit::tracer
