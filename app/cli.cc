#include "app/cli.h"

#include <charconv>

#include <boost/program_options.hpp>

#include "app/cli_options.h"
#include "app/commands.h"
#include "suites/suites.h"

namespace aorta::cli {
namespace po = boost::program_options;
namespace {

// Long options as written (--name value or --name=value); no abbreviations, so a
// shortened or misspelt flag is an error, never a guess.
constexpr int kStyle = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;

struct Parsed {
  po::variables_map vm;
  std::vector<std::string> positional;
  std::vector<std::string> unknown;  // unregistered options
};

// Registered options into vm; positional words and unknown options kept apart, in order.
Parsed parse_with(const std::vector<std::string>& args, const po::options_description& d) {
  Parsed out;
  auto parsed = po::command_line_parser(args).options(d).style(kStyle).allow_unregistered().run();
  po::store(parsed, out.vm);
  for (const auto& opt : parsed.options) {
    if (opt.position_key != -1) out.positional.push_back(opt.value.front());
    else if (opt.unregistered) out.unknown.insert(out.unknown.end(), opt.original_tokens.begin(), opt.original_tokens.end());
  }
  return out;
}

std::string text(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::string>() : "";
}

// Whether a word is a run option whose value is the next word (--html PATH).
bool run_option_takes_value(const std::string& word) {
  if (word.rfind("--", 0) != 0 || word.find('=') != std::string::npos) return false;
  static const po::options_description options = run_options();
  const auto* option = options.find_nothrow(word.substr(2), false);
  return option && option->semantic()->max_tokens() > 0;
}

}  // namespace

void parse_run(const std::vector<std::string>& given, Options& o) {
  if (o.help) return;
  std::vector<std::string> args = given;
  auto pytest = take_pytest_args(args, run_option_takes_value);
  if (!pytest) {
    o.error = pytest.error().describe();
    return;
  }
  o.pytest = *pytest;
  Parsed p = parse_with(args, run_options());
  o.cluster_file = text(p.vm, "cluster_file");
  o.config_file = text(p.vm, "config_file");
  o.output_dir = text(p.vm, "output_dir");
  o.workspace = text(p.vm, "workspace");
  o.html_file = text(p.vm, "html");
  o.log_file = text(p.vm, "log-file");
  o.junitxml = text(p.vm, "junitxml");
  o.baseline = text(p.vm, "baseline");
  o.history_root = text(p.vm, "history");
  o.junit_shape = text(p.vm, "junit-shape");
  o.no_html = p.vm.count("no-html") > 0;
  o.no_log_file = p.vm.count("no-log-file") > 0;
  for (const auto& a : p.unknown) {
    if (a.rfind("--gtest_", 0) == 0) o.gtest_args.push_back(a);
    else if (o.error.empty())
      o.error = "unknown argument: " + a + " (see --help; of pytest's arguments, -v, -q, -s, --capture, -x, "
                "--maxfail and -k are taken)";
  }
  if (auto flags = gtest_flags_of(o.pytest, o.gtest_args); !flags && o.error.empty()) o.error = flags.error().message;
  else if (flags) o.gtest_args.insert(o.gtest_args.end(), flags->begin(), flags->end());
  // One positional word, the suite, as in `cvs run aorta_single ...`.
  if (!p.positional.empty()) {
    const std::string& word = p.positional.front();
    if (!suites::find(word))
      o.error = o.error.empty() ? "unknown argument: " + word + " (a suite is " + suites::names(" or ") + ")" : o.error;
    else if (p.positional.size() > 1)
      o.error = o.error.empty() ? "unknown argument: " + p.positional[1] + " (see --help)" : o.error;
    else
      o.suite = word;
  }
  for (const auto* empty : {"workspace", "html", "log-file", "junitxml", "baseline", "history"})
    if (o.error.empty() && p.vm.count(empty) && text(p.vm, empty).empty()) o.error = std::string("--") + empty + " needs a path";
  if (o.error.empty() && p.vm.count("junit-shape") && o.junit_shape != "gtest" && o.junit_shape != "cvs")
    o.error = "--junit-shape must be gtest (the default) or cvs, got '" + o.junit_shape + "'";
  if (o.error.empty() && o.no_html && !o.html_file.empty()) o.error = "--html and --no-html contradict each other";
  if (o.error.empty() && o.no_log_file && !o.log_file.empty()) o.error = "--log-file and --no-log-file contradict each other";
}

void parse_analyze(const std::vector<std::string>& args, Options& o) {
  if (o.help) return;
  Parsed p = parse_with(args, analyze_options());
  o.output = text(p.vm, "output");
  o.include_unlinked = p.vm.count("include-unlinked-kernels") > 0;
  if (p.vm.count("ranks")) {
    if (text(p.vm, "ranks") != "all") {
      o.error = "--ranks takes only all (every rank a row of the table)";
      return;
    }
    o.every_rank = true;
  }
  if (!p.unknown.empty()) {
    o.error = "unknown argument: " + p.unknown.front();
    return;
  }
  if (p.positional.size() > 1) {
    o.error = "unknown argument: " + p.positional[1];
    return;
  }
  if (std::string jobs = text(p.vm, "jobs"); p.vm.count("jobs")) {
    auto [end, ec] = std::from_chars(jobs.data(), jobs.data() + jobs.size(), o.jobs);
    if (ec != std::errc() || end != jobs.data() + jobs.size() || o.jobs < 1) {
      o.error = "--jobs needs a whole number >= 1";
      return;
    }
  }
  if (p.positional.empty()) o.error = "analyze needs TRACE_DIR";
  else o.trace_dir = p.positional.front();
}

void parse_compare(const std::vector<std::string>& args, Options& o) {
  if (o.help) return;
  Parsed p = parse_with(args, compare_options());
  o.output = text(p.vm, "output");
  if (p.vm.count("max-regression")) o.max_regression = p.vm["max-regression"].as<std::vector<std::string>>();
  if (!p.unknown.empty()) o.error = "unknown argument: " + p.unknown.front();
  else if (p.positional.size() != 2) o.error = "compare needs BASELINE and CANDIDATE (report JSON, run folder or trace folder)";
  else o.compare_paths = p.positional;
}

namespace {

// A whole number >= 1 into out; false when the text is not one.
bool count_of(const std::string& given, int& out) {
  auto [end, ec] = std::from_chars(given.data(), given.data() + given.size(), out);
  return ec == std::errc() && end == given.data() + given.size() && out >= 1;
}

}  // namespace

void parse_history(const std::vector<std::string>& args, Options& o) {
  if (o.help) return;
  Parsed p = parse_with(args, history_options());
  o.output = text(p.vm, "output");
  o.html_file = text(p.vm, "html");
  if (p.vm.count("max-regression")) o.max_regression = {text(p.vm, "max-regression")};
  if (!p.unknown.empty()) o.error = "unknown argument: " + p.unknown.front();
  else if (p.positional.size() != 1) o.error = "history needs one ROOT (a folder of run folders)";
  else if (p.vm.count("last") && !count_of(text(p.vm, "last"), o.history_last)) o.error = "--last needs a whole number >= 1";
  else if (p.vm.count("baseline-runs") && !count_of(text(p.vm, "baseline-runs"), o.history_baseline_runs))
    o.error = "--baseline-runs needs a whole number >= 1";
  else o.history_root = p.positional.front();
}

void parse_list(const std::vector<std::string>& args, Options& o) {
  if (o.help) return;
  Parsed p = parse_with(args, plain_options());
  if (!p.unknown.empty()) o.error = "unknown argument: " + p.unknown.front();
  else if (p.positional.size() > 1) o.error = "list takes at most one suite name";
  else if (!p.positional.empty()) o.suite = p.positional.front();
}

void parse_config(const std::vector<std::string>& args, Options& o) {
  o.command = Command::kConfigCopy;
  std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  if (o.help) return;
  if (!args.empty() && args[0] == "list") {
    o.command = Command::kConfigList;
    Parsed p = parse_with(rest, plain_options());
    if (!p.unknown.empty() || !p.positional.empty())
      o.error = "unknown argument: " + (p.unknown.empty() ? p.positional : p.unknown).front();
    return;
  }
  const bool import = !args.empty() && args[0] == "import";
  if (import) o.command = Command::kConfigImport;
  const char* usage = import ? "usage: aorta_suite config import FILE.yaml [--output FILE.json]"
                             : "usage: aorta_suite config copy NAME --output FILE";
  Parsed p = parse_with(rest, config_copy_options());
  if ((!import && (args.empty() || args[0] != "copy")) || p.positional.empty()) {
    o.error = usage;
    return;
  }
  o.config_name = p.positional.front();
  o.output = text(p.vm, "output");
  if (!p.unknown.empty()) o.error = "unknown argument: " + p.unknown.front();
  else if (p.positional.size() > 1) o.error = "unknown argument: " + p.positional[1];
  else if (o.output.empty() && !import) o.error = "config copy needs --output FILE";
}

namespace {

// "--help" or "-h" among the words after the command, before a "--".
bool asks_help(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

Options parse(const std::vector<std::string>& args) {
  Options o;
  // --version anywhere, as most tools take it.
  for (const auto& a : args) {
    if (a == "--") break;
    if (a == "--version") {
      o.command = Command::kVersion;
      return o;
    }
  }
  std::string command = args.empty() ? "" : args[0];
  std::vector<std::string> rest(args.begin() + (args.empty() ? 0 : 1), args.end());
  try {
    for (const auto& row : command_rows())
      if (row.word && command == row.word) {
        o.command = row.command;
        o.help = asks_help(rest);
        if (row.parse) row.parse(rest, o);
        return o;
      }
    // No command word: a run, or the whole usage for --help.
    if (asks_help(args)) o.command = Command::kHelp;
    else parse_run(args, o);
  } catch (const po::error& e) {
    o.error = e.what();  // names the option, e.g. "the required argument for option '--jobs' is missing"
  }
  return o;
}

}  // namespace aorta::cli
