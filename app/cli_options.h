// Each command's options as Boost.Program_options describes them: the parsers
// (app/cli.cc) read them and each command's help (app/command_help.cc) prints them.
#pragma once

#include <boost/program_options/options_description.hpp>

namespace aorta::cli {

boost::program_options::options_description run_options();
boost::program_options::options_description analyze_options();
boost::program_options::options_description compare_options();
boost::program_options::options_description history_options();
// --help and --version: list and config list take nothing else.
boost::program_options::options_description plain_options();
boost::program_options::options_description config_copy_options();

}  // namespace aorta::cli
