// aorta_suite's commands, one row each, as ninja's tool table: the word that picks
// it, its help, how its arguments are read and what runs it. The parser, the help,
// a usage error's pointer to the help and main's dispatch all read this table.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "app/cli.h"

namespace aorta::cli {

struct CommandRow {
  Command command;
  const char* word;        // the first word that picks it; null: picked otherwise (config's, --version)
  const char* help_words;  // what a usage error names before --help: "config copy ", "" for the whole usage
  std::string (*help)();   // aorta_suite <word> --help
  void (*parse)(const std::vector<std::string>& args, Options& o);  // null: takes any words
  int (*run)(const Options& o, const char* argv0);                  // the exit status
};

std::span<const CommandRow> command_rows();
const CommandRow& command_row(Command command);

// The whole usage (aorta_suite --help), or one command's (aorta_suite run --help).
inline std::string command_help(Command command) { return command_row(command).help(); }

}  // namespace aorta::cli
