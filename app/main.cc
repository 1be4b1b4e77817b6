// aorta_suite's entry point: the exception boundary and the dispatch to a command
// (the command table, app/commands.h).
#include <iostream>

#include "app/commands.h"
#include "app/exit_codes.h"
#include "app/managed_run.h"
#include "app/rank_results_command.h"
#include "common/utf8.h"

namespace {

using namespace aorta;

int run_main(int argc, char** argv) {
  // A node's agent in a managed run, started by aorta_suite itself (app/managed_run.h).
  if (argc > 1 && std::string(argv[1]) == "agent") return app::agent_command(argc, argv);
  // A node's part of node-side analysis, run by the head (app/rank_results_command.h).
  if (argc > 1 && std::string(argv[1]) == "rank-results") return app::rank_results_command(argc, argv);
  cli::Options o = cli::parse(std::vector<std::string>(argv + 1, argv + argc));
  if (!o.error.empty()) return app::usage_error(o.error, o.command);
  if (o.help) {
    std::cout << cli::command_help(o.command);
    return app::kExitOk;
  }
  return cli::command_row(o.command).run(o, argv[0]);
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
  return aorta::app::kExitFailed;
}
