// The run: config checks that must pass before any node is touched, the session,
// the reports, then GoogleTest. --gtest_list_tests goes the same way and stops
// after GoogleTest is set up, touching no node and creating no folder.
#pragma once

#include "app/cli.h"

namespace aorta::app {

int run_suite(const cli::Options& o, const char* argv0);

}  // namespace aorta::app
