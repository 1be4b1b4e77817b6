// The commands that show or copy what the binary ships: list (the suites and their
// stages), config list and config copy.
#pragma once

#include "app/cli.h"

namespace aorta::app {

int list_suites(const cli::Options& o);   // o.suite: only that one
int list_configs(const cli::Options& o);  // the shipped config and threshold files
int copy_config(const cli::Options& o);   // o.config_name to o.output, never over a file

}  // namespace aorta::app
