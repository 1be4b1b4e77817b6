// A stage's notes as the console echoes them (issue 46): lines that differ only in whom
// they are about ("<subject>: <text>", e.g. a trace's or a node's name) are one line
// past kAlikeShown of them, so 512 ranks or 64 nodes saying the same thing are not 512
// or 64 lines; an indented block under a line ending in ':' (a node log's last lines,
// where a training writes a line per rank) keeps its last kBlockLinesShown lines. The
// run's text log, JUnit and the Full Log pages keep every line.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace aorta::report {

inline constexpr size_t kAlikeShown = 4;
inline constexpr size_t kBlockLinesShown = 8;

// In order; a folded group stands where its first line stood: "<text>: said of N
// (<first subject>, <second> and N - 2 more; each in the run's log)".
std::vector<std::string> fold_alike_lines(const std::vector<std::string>& lines);

// The last kBlockLinesShown lines of each block, the cut ones said in one line in their
// place: "  (12 earlier lines in the run's log)"; past kAlikeShown blocks (64 nodes' log
// tails) the others are one line where the first of them stood.
std::vector<std::string> shorten_blocks(const std::vector<std::string>& lines);

// What the console echoes of a stage's notes: both of the above.
std::vector<std::string> console_notes(const std::vector<std::string>& lines);

}  // namespace aorta::report
