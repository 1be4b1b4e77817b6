// POSIX shell quoting. Every command built from a config value goes through here, so
// no node name, path, env value or override can be read by a shell as code.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace aorta {

// 'text' with embedded single quotes written as '\''; safe as one shell word.
std::string shell_quote(std::string_view text);

// Each argument quoted, joined by spaces: one shell command line for an argv.
std::string shell_join(const std::vector<std::string>& argv);

}  // namespace aorta
