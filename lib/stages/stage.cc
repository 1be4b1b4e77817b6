#include "stages/stage.h"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace aorta::stages {

StageResult subtest_result(const std::string& stage_test, const std::string& test_name, const std::string& label,
                           const job::SubTest& sub) {
  StageResult record;
  record.stage = stage_test;
  record.name = test_name;
  record.label = label;
  record.subtest = sub;
  record.outcome = sub.outcome;
  if (std::string measured = sub.measured_with_margin(); !measured.empty()) record.log.push_back(measured);
  if (sub.outcome == job::Outcome::kFailed) record.failures.push_back(sub.message);
  if (sub.outcome == job::Outcome::kSkipped) record.skip_reason = sub.message;
  return record;
}

std::vector<SubTestName> subtest_names(const std::string& stage_test, const std::vector<std::string>& values) {
  std::vector<SubTestName> names;
  std::set<std::string> taken;
  for (const auto& value : values) {
    std::string part = job::test_name_part(value);
    for (int n = 2; !taken.insert(part).second; ++n) part = job::test_name_part(value) + "_" + std::to_string(n);
    names.push_back({value, stage_test + "/" + part});
  }
  return names;
}

std::vector<std::string> unselected_subtest_failures(const std::vector<job::SubTest>& subtests, const std::string& key,
                                                     const std::vector<SubTestName>& tests,
                                                     const std::function<bool(const std::string&)>& selected) {
  std::vector<std::string> failures;
  for (const auto& t : subtests) {
    if (t.outcome != job::Outcome::kFailed || t.key != key) continue;
    auto test = std::find_if(tests.begin(), tests.end(), [&](const SubTestName& n) { return n.value == t.value; });
    if (test == tests.end() || !selected(test->name)) failures.push_back(t.value + ": " + t.message);
  }
  return failures;
}

std::string failed_subtests_line(const std::vector<job::SubTest>& subtests, const std::string& what,
                                 const std::string& whats) {
  std::string names;
  size_t failed = 0;
  for (const auto& t : subtests)
    if (t.outcome == job::Outcome::kFailed) names += (failed++ == 0 ? "" : ", ") + t.value;
  if (failed == 0) return "";
  return std::to_string(failed) + " " + (failed == 1 ? what : whats) + " failed: " + names;
}

namespace {

// Python's repr() of a str: single quotes unless the text holds one and no double
// quote; backslash, the quote, \n, \r, \t and other control bytes escaped.
std::string python_repr(const std::string& text) {
  const bool has_single = text.find('\'') != std::string::npos, has_double = text.find('"') != std::string::npos;
  const char quote = has_single && !has_double ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : text) {
    if (c == '\\' || c == static_cast<unsigned char>(quote))
      out += {'\\', static_cast<char>(c)};
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out + quote;
}

}  // namespace

std::string following_failures_line(const std::vector<std::string>& failures) {
  std::string list;
  for (const auto& f : failures) list += (list.empty() ? "" : ", ") + python_repr(f);
  return "Following FAILURES seen - [" + list + "]";
}

}  // namespace aorta::stages
