#include "app/list_commands.h"

#include <iostream>

#include "app/exit_codes.h"
#include "config/shipped.h"
#include "suites/suites.h"

namespace aorta::app {

int list_suites(const cli::Options& o) {
  bool found = false;
  for (const auto& suite : suites::all()) {
    if (!o.suite.empty() && o.suite != suite.name) continue;
    found = true;
    std::cout << suite.name << "\n";
    int n = 1;
    for (const auto* s : suite.stages) std::cout << "  " << n++ << ". " << s->test_name << "\n";
  }
  if (!found)
    return usage_error("unknown suite '" + o.suite + "'; suites are " + suites::names(" and "), cli::Command::kList);
  return kExitOk;
}

int list_configs(const cli::Options&) {
  auto names = config::shipped_config_names();
  if (!names) return usage_error(names.error().message);
  for (const auto& n : *names) std::cout << n << "\n";
  return kExitOk;
}

int copy_config(const cli::Options& o) {
  if (Status s = config::copy_shipped_config(o.config_name, o.output); !s) return usage_error(s.error().message);
  std::cout << "copied " << o.config_name << " to " << o.output << "\n";
  return kExitOk;
}

}  // namespace aorta::app
