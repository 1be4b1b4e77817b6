#include "app/exit_codes.h"

#include <iostream>

#include "app/commands.h"

namespace aorta::app {

int usage_error(const std::string& message, cli::Command command) {
  std::cerr << "aorta_suite: " << message << "\n"
            << "Run 'aorta_suite " << cli::command_row(command).help_words << "--help' for usage.\n";
  return kExitUsage;
}

}  // namespace aorta::app
