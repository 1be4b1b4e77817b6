// Where bash would read a word differently from the literal argument. CVS splices
// multi_node.extra_torchrun_args and extra_train_args raw into a `bash -lc` line;
// aorta_suite passes each element as one literal argument. An element whose meaning
// differs between the two is refused at load time, so it never silently means
// something else than under CVS.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

namespace aorta::config {

struct ShellMeaning {
  size_t position = 0;  // 0-based offset of the character in the word
  char character = 0;   // 0 for an empty word
  std::string does;     // what bash does with it, e.g. "starts a variable or command substitution"
};

// The first character bash would not take literally in an unquoted word that is
// neither the command name nor an assignment before it (an argument of torchrun or
// train.py). Whitespace is the caller's concern (its own message). nullopt: bash
// reads the word exactly as it is written.
std::optional<ShellMeaning> shell_meaning(const std::string& word);

}  // namespace aorta::config
