#include "app/gtest_filter.h"

#include <sstream>

namespace aorta::cli {
namespace {

bool glob_match(const char* pattern, const char* text) {
  if (*pattern == '\0') return *text == '\0';
  if (*pattern == '*') return glob_match(pattern + 1, text) || (*text && glob_match(pattern, text + 1));
  if (*text && (*pattern == '?' || *pattern == *text)) return glob_match(pattern + 1, text + 1);
  return false;
}

bool any_match(const std::string& patterns, const std::string& name) {
  std::stringstream in(patterns);
  std::string p;
  while (std::getline(in, p, ':'))
    if (!p.empty() && glob_match(p.c_str(), name.c_str())) return true;
  return false;
}

}  // namespace

bool filter_matches(const std::string& filter, const std::string& test_name) {
  size_t dash = filter.find('-');
  std::string positive = dash == std::string::npos ? filter : filter.substr(0, dash);
  std::string negative = dash == std::string::npos ? "" : filter.substr(dash + 1);
  if (positive.empty()) positive = "*";
  return any_match(positive, test_name) && !any_match(negative, test_name);
}

}  // namespace aorta::cli
