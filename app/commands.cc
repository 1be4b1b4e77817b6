#include "app/commands.h"

#include <iostream>

#include "app/analyze_command.h"
#include "app/command_help.h"
#include "app/compare_command.h"
#include "app/config_import.h"
#include "app/exit_codes.h"
#include "app/history_command.h"
#include "app/list_commands.h"
#include "app/run_command.h"
#include "common/version.h"

namespace aorta::cli {
namespace {

int print_usage(const Options&, const char*) {
  std::cout << usage();
  return app::kExitOk;
}

int print_version(const Options&, const char*) {
  std::cout << version_line() << "\n";
  return app::kExitOk;
}

// A command whose run needs no more than its options.
template <int (*run)(const Options&)>
int with_options(const Options& o, const char*) {
  return run(o);
}

// The order is that of the whole usage; run is also the command without a word.
constexpr CommandRow kCommands[] = {
    {Command::kRun, "run", "run ", run_help, parse_run, app::run_suite},
    {Command::kList, "list", "list ", list_help, parse_list, with_options<app::list_suites>},
    {Command::kConfigCopy, "config", "config copy ", config_help, parse_config, with_options<app::copy_config>},
    {Command::kConfigList, nullptr, "config list ", config_help, nullptr, with_options<app::list_configs>},
    {Command::kConfigImport, nullptr, "config import ", config_help, nullptr, with_options<app::import_config>},
    {Command::kAnalyze, "analyze", "analyze ", analyze_help, parse_analyze, with_options<app::analyze>},
    {Command::kCompare, "compare", "compare ", compare_help, parse_compare, with_options<app::compare>},
    {Command::kHistory, "history", "history ", history_help, parse_history, with_options<app::history>},
    {Command::kHelp, "help", "", usage, nullptr, print_usage},
    {Command::kVersion, nullptr, "", usage, nullptr, print_version},
};

}  // namespace

std::span<const CommandRow> command_rows() { return kCommands; }

const CommandRow& command_row(Command command) {
  for (const auto& row : kCommands)
    if (row.command == command) return row;
  return kCommands[0];  // every Command has its row (Commands.EveryCommandHasOneRow)
}

}  // namespace aorta::cli
