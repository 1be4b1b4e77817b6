// What aorta_suite --help prints, and each command's own help (aorta_suite COMMAND
// --help): the texts the command table (app/commands.cc) hands out.
#pragma once

#include <string>

namespace aorta::cli {

std::string usage();  // the whole usage
std::string run_help();
std::string analyze_help();
std::string compare_help();
std::string history_help();
std::string list_help();
std::string config_help();  // config list, copy and import share it

}  // namespace aorta::cli
