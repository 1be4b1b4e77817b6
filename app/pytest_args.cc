#include "app/pytest_args.h"

#include <algorithm>
#include <charconv>

namespace aorta::cli {
namespace {

Error usage(const std::string& message) { return Error{ErrorCode::kInvalidInput, message, ""}; }

// The words of one kind as given, each once: "-s, --capture=tee-sys".
void add_word(std::string& words, const std::string& word) {
  if ((", " + words + ", ").find(", " + word + ", ") == std::string::npos) words += (words.empty() ? "" : ", ") + word;
}

// pytest's --capture methods (CVS's list adds tee-merged, which pytest then refuses).
Status set_capture(PytestArgs& out, const std::string& method, const std::string& word) {
  if (method != "fd" && method != "sys" && method != "no" && method != "tee-sys")
    return usage(word + ": pytest's capture methods are fd, sys, no and tee-sys");
  out.capture = method;
  add_word(out.capture_words, word);
  return ok_status();
}

Status set_maxfail(PytestArgs& out, const std::string& value) {
  int n = -1;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < 0)
    return usage("--maxfail=" + value + ": needs a whole number >= 0 (0: no limit)");
  out.exit_first = n > 0;
  add_word(out.fail_words, "--maxfail=" + value);
  return ok_status();
}

Status set_keyword(PytestArgs& out, const std::string& expression) {
  auto compiled = KeywordExpression::compile(expression);
  if (!compiled) return compiled.error();
  out.keyword = *compiled;
  return ok_status();
}

void add_verbosity(PytestArgs& out, char letter) {
  out.verbosity += letter == 'v' ? 1 : -1;
  out.verbosity_words += out.verbosity_words.empty() ? std::string("-") + letter : std::string(1, letter);
}

// A cluster of short ones (-v, -vvs, -xk EXPR, -kEXPR), or nothing when a letter is not
// pytest's (the word then stays for the command's own parser). `next` is the following
// word, taken as -k's expression when the cluster ends with k; `used_next` says so.
std::optional<Status> take_short(PytestArgs& out, const std::string& word, const std::string* next, bool& used_next) {
  const size_t k = word.find('k');
  const std::string flags = word.substr(1, k == std::string::npos ? std::string::npos : k - 1);
  if (flags.find_first_not_of("vqsx") != std::string::npos || word.size() < 2) return std::nullopt;
  for (char c : flags) {
    if (c == 'v' || c == 'q') add_verbosity(out, c);
    if (c == 's') {
      out.capture = "no";
      add_word(out.capture_words, "-s");
    }
    if (c == 'x') {
      out.exit_first = true;
      add_word(out.fail_words, "-x");
    }
  }
  if (k == std::string::npos) return ok_status();
  std::string value = word.substr(k + 1);
  if (!value.empty() && value.front() == '=') value.erase(0, 1);  // -k=EXPR, as argparse reads it
  if (word.size() == k + 1) {
    if (!next) return usage("-k needs an expression (-k 'benchmark or teardown')");
    value = *next;
    used_next = true;
  }
  return set_keyword(out, value);
}

// A long one (--verbose, --capture=fd, --maxfail 2, ...), or nothing when not pytest's.
std::optional<Status> take_long(PytestArgs& out, const std::string& word, const std::string* next, bool& used_next) {
  const size_t eq = word.find('=');
  const std::string name = word.substr(0, eq);
  if (name == "--verbose" || name == "--quiet" || name == "--exitfirst") {
    if (eq != std::string::npos) return usage(name + " takes no value: " + word);
    if (name == "--exitfirst") {
      out.exit_first = true;
      add_word(out.fail_words, name);
    } else {
      add_verbosity(out, name == "--verbose" ? 'v' : 'q');
    }
    return ok_status();
  }
  if (name != "--capture" && name != "--maxfail") return std::nullopt;
  std::string value;
  if (eq != std::string::npos) {
    value = word.substr(eq + 1);
  } else if (next) {
    value = *next;
    used_next = true;
  } else {
    return usage(name + " needs a value (" + name + (name == "--capture" ? "=tee-sys)" : "=N)"));
  }
  return name == "--capture" ? set_capture(out, value, "--capture=" + value) : set_maxfail(out, value);
}

}  // namespace

Result<PytestArgs> take_pytest_args(std::vector<std::string>& args,
                                    const std::function<bool(const std::string&)>& takes_value) {
  PytestArgs out;
  std::vector<std::string> rest;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& word = args[i];
    if (word == "--") {
      rest.insert(rest.end(), args.begin() + i, args.end());
      break;
    }
    const std::string* next = i + 1 < args.size() ? &args[i + 1] : nullptr;
    bool used_next = false;
    std::optional<Status> taken;
    if (word.rfind("--", 0) == 0) taken = take_long(out, word, next, used_next);
    else if (word.rfind("-", 0) == 0) taken = take_short(out, word, next, used_next);
    if (taken && !*taken) return taken->error();
    if (taken) {
      i += used_next ? 1 : 0;
      continue;
    }
    rest.push_back(word);
    if (takes_value(word) && next) rest.push_back(args[++i]);  // an option's value is never ours
  }
  args = std::move(rest);
  return out;
}

Result<std::vector<std::string>> gtest_flags_of(const PytestArgs& args, const std::vector<std::string>& gtest_args) {
  auto given = [&](const std::string& flag) {
    return std::any_of(gtest_args.begin(), gtest_args.end(),
                       [&](const std::string& a) { return a == flag || a.rfind(flag + "=", 0) == 0; });
  };
  if (args.keyword && given("--gtest_filter"))
    return usage("-k and --gtest_filter both select tests: give one (-k takes pytest's expression, --gtest_filter "
                 "gtest's globs)");
  std::vector<std::string> flags;
  if (args.verbosity < 0 && !given("--gtest_brief")) flags.push_back("--gtest_brief=1");
  if (args.exit_first && !given("--gtest_fail_fast")) flags.push_back("--gtest_fail_fast");
  return flags;
}

std::string pytest_args_line(const PytestArgs& a) {
  if (!a.any()) return "";
  std::string line = "aorta_suite: pytest arguments taken as:";
  auto part = [&line, first = true](const std::string& words, const std::string& meaning) mutable {
    line += std::string(first ? " " : "; ") + words + ": " + meaning;
    first = false;
  };
  if (!a.verbosity_words.empty())
    part(a.verbosity_words, a.verbosity < 0 ? "--gtest_brief=1, only failures and the summary are printed"
                                            : "each test and its outcome are printed, as always (there is no more "
                                              "detail to add: the whole output is in the text log)");
  if (!a.capture_words.empty())
    part(a.capture_words, "nothing is captured: a stage's messages are printed here as it runs and its whole "
                         "output kept in the text log and its Full Log page, as with tee-sys");
  if (!a.fail_words.empty())
    part(a.fail_words, a.exit_first ? "--gtest_fail_fast (below)" : "no limit, pytest's default");
  if (a.keyword)
    part("-k '" + a.keyword->text() + "'", "runs the stages and sub-tests whose names it matches, as pytest "
                                           "matches them (a selection that leaves out a stage they need is refused)");
  return line;
}

}  // namespace aorta::cli
