#include "app/exit_codes.h"

#include <iostream>

namespace aorta::app {

int usage_error(const std::string& message, cli::Command command) {
  std::cerr << "aorta_suite: " << message << "\n\n" << cli::command_help(command);
  return kExitUsage;
}

}  // namespace aorta::app
