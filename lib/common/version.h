// Which build made a binary or a report: the project version from CMake and the git
// commit the build was made from (generated at build time by cmake/version.cmake,
// so a rebuild after a new commit never reports the old one).
#pragma once

#include <string>

namespace aorta {

// "0.1.0"
const char* version();
// 12 hex digits, with "-dirty" when the tree had uncommitted changes; "unknown"
// when built outside a git checkout (a source tarball).
const char* git_commit();
// "aorta_suite 0.1.0 (commit 1a2b3c4d5e6f)", the --version line.
std::string version_line();

}  // namespace aorta
