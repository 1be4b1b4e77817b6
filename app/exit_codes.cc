#include "app/exit_codes.h"

#include <iostream>

namespace aorta::app {

namespace {

// The words before --help that show the command's help.
const char* help_words(cli::Command command) {
  switch (command) {
    case cli::Command::kRun: return "run ";
    case cli::Command::kList: return "list ";
    case cli::Command::kConfigCopy: return "config copy ";
    case cli::Command::kConfigList: return "config list ";
    case cli::Command::kConfigImport: return "config import ";
    case cli::Command::kAnalyze: return "analyze ";
    case cli::Command::kCompare: return "compare ";
    case cli::Command::kHelp:
    case cli::Command::kVersion: return "";
  }
  return "";
}

}  // namespace

int usage_error(const std::string& message, cli::Command command) {
  std::cerr << "aorta_suite: " << message << "\n"
            << "Run 'aorta_suite " << help_words(command) << "--help' for usage.\n";
  return kExitUsage;
}

}  // namespace aorta::app
