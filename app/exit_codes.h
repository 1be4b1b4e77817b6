// aorta_suite's exit statuses, shared by its commands.
#pragma once

#include <string>

#include "app/cli.h"

namespace aorta::app {

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

// "aorta_suite: MESSAGE" and one line naming the command's help, on stderr; exit 2.
// (The whole help after the error pushed the error off the screen: issue 31.)
int usage_error(const std::string& message, cli::Command command = cli::Command::kHelp);

}  // namespace aorta::app
