#include "app/gtest_flags.h"

#include <map>

#include "app/gtest_environment.h"

namespace aorta::app {
namespace {

enum class Kind { kBool, kInt, kString };

// GoogleTest 1.12's flags (ParseGoogleTestFlag in gtest.cc, plus flagfile).
const std::map<std::string, Kind>& known_flags() {
  static const std::map<std::string, Kind> flags = {
      {"also_run_disabled_tests", Kind::kBool}, {"break_on_failure", Kind::kBool},
      {"catch_exceptions", Kind::kBool},        {"color", Kind::kString},
      {"death_test_style", Kind::kString},      {"death_test_use_fork", Kind::kBool},
      {"fail_fast", Kind::kBool},               {"filter", Kind::kString},
      {"list_tests", Kind::kBool},              {"output", Kind::kString},
      {"brief", Kind::kBool},                   {"print_time", Kind::kBool},
      {"print_utf8", Kind::kBool},              {"random_seed", Kind::kInt},
      {"repeat", Kind::kInt},                   {"recreate_environments_when_repeating", Kind::kBool},
      {"shuffle", Kind::kBool},                 {"stack_trace_depth", Kind::kInt},
      {"stream_result_to", Kind::kString},      {"throw_on_failure", Kind::kBool},
      {"flagfile", Kind::kString},
  };
  return flags;
}

Error usage(const std::string& message) { return Error{ErrorCode::kInvalidInput, message, ""}; }

// gtest's reading of a bool value: false only when it starts with 0, f or F.
bool bool_value(const std::string& v) { return v.empty() || (v[0] != '0' && v[0] != 'f' && v[0] != 'F'); }

// xml, xml:FILE or xml:DIR/ as gtest reads them; json is refused (the JSON
// report is aorta_benchmark_report.json, in the run's folder).
Result<JunitOutput> junit_output(const std::string& flag, const std::string& value) {
  std::string format = value.substr(0, value.find(':'));
  if (format == "json")
    return usage(flag + " is not supported: the JUnit file is --gtest_output=xml[:PATH]; the JSON report is "
                        "aorta_benchmark_report.json in the run's folder");
  if (format != "xml") return usage(flag + ": unknown format '" + format + "' (use xml, xml:FILE or xml:DIR/)");
  // Bare xml: gtest's default, test_detail.xml in the current folder.
  if (value == "xml") return JunitOutput{"test_detail.xml", false};
  std::string path = value.substr(4);
  if (path.empty()) return JunitOutput{".", true};
  return JunitOutput{path, path.back() == '/'};
}

// Why one --gtest_ word is refused (unknown, malformed, or breaking the session), or nothing.
std::optional<Error> flag_refusal(const std::string& arg, const std::string& name, const std::string& key,
                                  const std::optional<std::string>& value) {
  if (key.rfind("internal_", 0) == 0) return usage(name + " is GoogleTest-internal (death tests); the suite runs none");
  auto it = known_flags().find(key);
  if (it == known_flags().end())
    return usage("unknown GoogleTest flag " + name + " (see aorta_suite run --help for the gtest flags it takes)");
  if (it->second != Kind::kBool && !value) return usage(name + " needs a value (" + name + "=...)");
  if (it->second == Kind::kInt && !gtest_int32(*value)) return usage(arg + ": not a whole number");
  if (key == "flagfile")
    return usage(name + " is not supported: give the flags on the command line, where they are checked");
  // A value its variable's rule refuses (gtest_environment.h), for the same reason.
  if (const GtestVariable* v = gtest_variable_of_flag(key);
      v && gtest_rule_refuses(v->rule, bool_value(value.value_or("")), value ? gtest_int32(*value) : std::nullopt,
                              value.value_or("")))
    return usage(arg + " is refused: " + v->why);
  return std::nullopt;
}

}  // namespace

Result<GtestFlags> check_gtest_flags(const std::vector<std::string>& args, const Getenv& getenv) {
  GtestFlags out;
  bool color_given = false, fail_fast_given = false;
  std::optional<std::string> output;
  std::string output_label;  // the flag or variable it came from, for errors
  for (const auto& arg : args) {
    size_t eq = arg.find('=');
    std::string name = arg.substr(0, eq);  // --gtest_x
    std::optional<std::string> value;
    if (eq != std::string::npos) value = arg.substr(eq + 1);
    std::string key = name.rfind("--gtest_", 0) == 0 ? name.substr(8) : "";
    if (auto refused = flag_refusal(arg, name, key, value)) return *refused;
    if (key == "filter") {
      out.filter = *value;
      continue;
    }
    if (key == "output") {
      output = *value;
      output_label = arg;
      continue;
    }
    if (key == "fail_fast") {
      fail_fast_given = true;
      out.fail_fast = bool_value(value.value_or(""));
      continue;
    }
    if (key == "list_tests") out.list_tests = bool_value(value.value_or(""));
    if (key == "color") color_given = true;
    out.pass_through.push_back(arg);
  }
  // gtest reads these variables as defaults for the flags, empty values included
  // (gtest_environment.h): the same rules apply.
  if (auto refusal = gtest_environment_refusal(getenv)) return *refusal;
  // Fail-fast: any value but "0" is true; Bazel's variable when gtest's is unset.
  if (const char* f = getenv("GTEST_FAIL_FAST"); f && !fail_fast_given) out.fail_fast = std::string(f) != "0";
  else if (const char* b = getenv("TESTBRIDGE_TEST_RUNNER_FAIL_FAST"); b && !fail_fast_given)
    out.fail_fast = std::string(b) == "1";
  // The filter when no --gtest_filter is given, as in gtest (Bazel's when GTEST_FILTER
  // is unset; an empty one selects nothing); it also picks the suite.
  const char* filter = getenv("GTEST_FILTER");
  if (!filter) filter = getenv("TESTBRIDGE_TEST_ONLY");
  if (!out.filter && filter) out.filter = filter;
  // GTEST_OUTPUT, set even empty, wins over Bazel's XML_OUTPUT_FILE, as in gtest.
  if (const char* o = getenv("GTEST_OUTPUT"); !output && o) {
    if (*o) output = o;
    output_label = std::string("GTEST_OUTPUT=") + o;
  }
  if (const char* x = getenv("XML_OUTPUT_FILE"); !output && output_label.empty() && x && *x) {
    output = std::string("xml:") + x;
    output_label = std::string("XML_OUTPUT_FILE=") + x;
  }
  // A listing writes no file (init_gtest releases gtest's output), so the output it
  // would not write is not checked: CI that sets GTEST_OUTPUT=json: for every gtest
  // binary still lists the tests.
  if (output && !out.list_tests) {
    auto junit = junit_output(output_label, *output);
    if (!junit) return junit.error();
    out.junit = *junit;
    out.junit->source = output_label.substr(0, output_label.find('='));
  }
  if (getenv("GTEST_COLOR")) color_given = true;  // empty: no colour, a choice too
  if (const char* no = getenv("NO_COLOR"); no && *no && !color_given) out.pass_through.push_back("--gtest_color=no");
  return out;
}

// A refused value of a flag whose variable's rule refuses some values: how the help
// names it and a word it refuses; nothing for a rule that refuses no flag's value.
std::optional<RefusedFlag> refused_form(const std::string& key, EnvRule rule) {
  const std::string flag = "--gtest_" + key;
  switch (rule) {
    case EnvRule::kRefusedTrue: return RefusedFlag{flag, flag};
    case EnvRule::kRefusedFalse: return RefusedFlag{flag + "=0", flag + "=0"};
    case EnvRule::kRefusedNonEmpty: return RefusedFlag{flag + "=VALUE", flag + "=host:9000"};
    case EnvRule::kOnlyOne: return RefusedFlag{flag + "=N other than 1", flag + "=2"};
    default: return std::nullopt;
  }
}

std::vector<RefusedFlag> refused_gtest_flags() {
  std::vector<RefusedFlag> out;
  for (const auto& [key, kind] : known_flags())
    if (const GtestVariable* v = gtest_variable_of_flag(key))
      if (auto form = refused_form(key, v->rule)) out.push_back(*form);
  out.push_back({"--gtest_flagfile", "--gtest_flagfile=flags.txt"});
  out.push_back({"--gtest_internal_*", "--gtest_internal_run_death_test=x"});
  out.push_back({"--gtest_output=json", "--gtest_output=json"});
  return out;
}

}  // namespace aorta::app
