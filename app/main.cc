// aorta_suite's entry point: the exception boundary and the dispatch to a command.
#include <iostream>

#include "app/analyze_command.h"
#include "app/cli.h"
#include "app/compare_command.h"
#include "app/config_import.h"
#include "app/exit_codes.h"
#include "app/managed_run.h"
#include "app/run_command.h"
#include "common/utf8.h"
#include "common/version.h"
#include "config/shipped.h"
#include "suites/suites.h"

namespace {

using namespace aorta;
using namespace aorta::app;
int list_suites(const std::string& only) {
  bool found = false;
  for (const auto& suite : suites::all()) {
    if (!only.empty() && only != suite.name) continue;
    found = true;
    std::cout << suite.name << "\n";
    int n = 1;
    for (const auto* s : suite.stages) std::cout << "  " << n++ << ". " << s->test_name << "\n";
  }
  if (!found)
    return usage_error("unknown suite '" + only + "'; suites are " + suites::names(" and "), cli::Command::kList);
  return kExitOk;
}

int run_main(int argc, char** argv) {
  // A node's agent in a managed run, started by aorta_suite itself (app/managed_run.h).
  if (argc > 1 && std::string(argv[1]) == "agent") return agent_command(argc, argv);
  cli::Options o = cli::parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!o.error.empty()) return usage_error(o.error, o.command);
  if (o.help) {
    std::cout << cli::command_help(o.command);
    return kExitOk;
  }
  switch (o.command) {
    case cli::Command::kHelp:
      std::cout << cli::usage();
      return kExitOk;
    case cli::Command::kVersion:
      std::cout << version_line() << "\n";
      return kExitOk;
    case cli::Command::kList:
      return list_suites(o.suite);
    case cli::Command::kConfigList:
      if (auto names = config::shipped_config_names(); !names) {
        return usage_error(names.error().message);
      } else {
        for (const auto& n : *names) std::cout << n << "\n";
        return kExitOk;
      }
    case cli::Command::kConfigCopy:
      if (Status s = config::copy_shipped_config(o.config_name, o.output); !s) return usage_error(s.error().message);
      std::cout << "copied " << o.config_name << " to " << o.output << "\n";
      return kExitOk;
    case cli::Command::kConfigImport:
      return import_config(o);
    case cli::Command::kAnalyze:
      return analyze(o);
    case cli::Command::kCompare:
      return compare(o);
    case cli::Command::kRun:
      return run_suite(o, argv[0]);
  }
  return kExitUsage;
}

}  // namespace

// Nothing escapes main: an exception is a bug, reported with its text, exit 1.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite: internal error: " << aorta::valid_utf8(e.what()) << "\n";
  } catch (...) {
    std::cerr << "aorta_suite: internal error: an exception that is not a std::exception\n";
  }
  return kExitFailed;
}
