#include "report/console_fold.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

namespace aorta::report {
namespace {

// "<subject>: <text>" split at the first ": "; a line without one has no subject.
std::pair<std::string, std::string> subject_and_text(const std::string& line) {
  const size_t colon = line.find(": ");
  if (colon == std::string::npos || colon == 0) return {"", line};
  return {line.substr(0, colon), line.substr(colon + 2)};
}

}  // namespace

std::vector<std::string> fold_alike_lines(const std::vector<std::string>& lines) {
  std::map<std::string, std::vector<std::string>> subjects;  // by text
  for (const auto& line : lines)
    if (auto [subject, text] = subject_and_text(line); !subject.empty()) subjects[text].push_back(subject);
  std::vector<std::string> out;
  for (const auto& line : lines) {
    const auto [subject, text] = subject_and_text(line);
    const auto group = subject.empty() ? subjects.end() : subjects.find(text);
    if (group == subjects.end() || group->second.size() <= kAlikeShown) {
      out.push_back(line);
      continue;
    }
    if (group->second.front() != subject) continue;  // folded into the group's first line
    const auto& named = group->second;
    out.push_back(fmt::format("{}: said of {} ({}, {} and {} more; each in the run's log)", text, named.size(), named[0],
                              named[1], named.size() - 2));
    group->second.front().clear();  // said: a later line with the first's subject is folded too
  }
  return out;
}

std::vector<std::string> shorten_blocks(const std::vector<std::string>& lines) {
  std::vector<std::string> out;
  size_t blocks = 0, unshown = 0, said_at = 0;  // blocks past kAlikeShown: one line where the first stood
  for (size_t i = 0; i < lines.size();) {
    const bool header = !lines[i].empty() && lines[i].back() == ':';
    size_t end = i + 1;
    while (header && end < lines.size() && lines[end].starts_with("  ")) ++end;
    if (end > i + 1 && ++blocks > kAlikeShown) {
      if (unshown++ == 0) said_at = out.size();
      i = end;
      continue;
    }
    out.push_back(lines[i++]);
    const size_t shown = std::min(end - i, kBlockLinesShown);
    if (end - i > shown) out.push_back(fmt::format("  ({} earlier lines in the run's log)", end - i - shown));
    out.insert(out.end(), lines.begin() + static_cast<long>(end - shown), lines.begin() + static_cast<long>(end));
    i = end;
  }
  if (unshown)
    out.insert(out.begin() + static_cast<long>(said_at),
               fmt::format("({} more blocks like these, e.g. other nodes' last log lines: in the run's log)", unshown));
  return out;
}

std::vector<std::string> console_notes(const std::vector<std::string>& lines) {
  return fold_alike_lines(shorten_blocks(lines));
}

}  // namespace aorta::report
