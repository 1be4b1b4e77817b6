#include "app/cli.h"

#include <charconv>
#include <sstream>

#include <boost/program_options.hpp>

#include "suites/suites.h"

namespace aorta::cli {
namespace po = boost::program_options;
namespace {

// Long options as written (--name value or --name=value); no abbreviations, so a
// shortened or misspelt flag is an error, never a guess.
constexpr int kStyle = po::command_line_style::unix_style ^ po::command_line_style::allow_guessing;

po::options_description run_options() {
  po::options_description d("Options");
  d.add_options()
      ("cluster_file", po::value<std::string>()->value_name("FILE"),
       "the nodes and how to reach them; without it, this machine (no SSH)")
      ("config_file", po::value<std::string>()->value_name("FILE"),
       "the benchmark config; without it, the shipped local_cpu_single.json")
      ("output_dir", po::value<std::string>()->value_name("DIR"),
       "where the run's folder (traces, aorta_benchmark_report.json) goes (default: the config's)")
      ("workspace", po::value<std::string>()->value_name("DIR"),
       "put the reports in DIR/cvs_runs/<run-id>/ (default: $CVS_WORKSPACE, else the run's folder)")
      ("html", po::value<std::string>()->value_name("FILE"),
       "write the HTML report here; its <suite>_html/ folder and zip go beside it")
      ("log-file", po::value<std::string>()->value_name("FILE"), "write the text log here")
      ("junitxml", po::value<std::string>()->value_name("FILE"), "also write the JUnit XML here")
      ("junit-shape", po::value<std::string>()->value_name("gtest|cvs"),
       "the JUnit file's shape: gtest (default; a testcase per test) or cvs (a testcase per stage, as CVS writes it)")
      ("baseline", po::value<std::string>()->value_name("REPORT"),
       "compare the run with this one in the Run Deck (a report JSON, run folder or trace folder)")
      ("no-html", "write no HTML report (nor its zip)")
      ("no-log-file", "write no text log")
      ("help,h", "print this help")
      ("version", "print the version and git commit");
  return d;
}

po::options_description analyze_options() {
  po::options_description d("Options");
  d.add_options()
      ("output", po::value<std::string>()->value_name("FILE"), "write the JSON here (default: standard output)")
      ("jobs", po::value<std::string>()->value_name("N"), "read N traces at once (default: one per core)")
      ("include-unlinked-kernels", "also count GPU events no ac2g flow links to a launch (as Aorta's scripts do)")
      ("help,h", "print this help")
      ("version", "print the version and git commit");
  return d;
}

po::options_description compare_options() {
  po::options_description d("Options");
  d.add_options()
      ("output", po::value<std::string>()->value_name("FILE"), "also write the comparison as JSON here")
      ("max-regression", po::value<std::vector<std::string>>()->value_name("[KEY=]PCT")->composing(),
       "exit 1 when a metric is more than PCT % worse than the baseline; KEY=PCT for one metric (repeatable)")
      ("help,h", "print this help")
      ("version", "print the version and git commit");
  return d;
}

po::options_description plain_options() {
  po::options_description d("Options");
  d.add_options()("help,h", "print this help")("version", "print the version and git commit");
  return d;
}

po::options_description config_copy_options() {
  po::options_description d = plain_options();
  d.add_options()("output,o", po::value<std::string>()->value_name("FILE"), "the file written (never overwritten)");
  return d;
}

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
  for (const auto* empty : {"workspace", "html", "log-file", "junitxml", "baseline"})
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

// Each parser leaves the options alone when o.help is set (the command's help is printed).
struct Subcommand {
  const char* word;
  Command command;
  void (*parse)(const std::vector<std::string>&, Options&);
};
constexpr Subcommand kSubcommands[] = {{"run", Command::kRun, parse_run},
                                       {"list", Command::kList, parse_list},
                                       {"config", Command::kConfigCopy, parse_config},
                                       {"analyze", Command::kAnalyze, parse_analyze},
                                       {"compare", Command::kCompare, parse_compare}};

// "--help" or "-h" among the words after the command, before a "--".
bool asks_help(const std::vector<std::string>& args) {
  for (const auto& a : args) {
    if (a == "--") return false;
    if (a == "--help" || a == "-h") return true;
  }
  return false;
}

}  // namespace

std::string usage() {
  return R"(aorta_suite - the Aorta training benchmark for GPU clusters, as GoogleTest suites

Usage:
  aorta_suite [run] [SUITE] [--cluster_file FILE] [--config_file FILE] [--output_dir DIR]
              [--workspace DIR] [--html FILE | --no-html] [--log-file FILE | --no-log-file]
              [--junitxml FILE] [--junit-shape gtest|cvs] [--baseline REPORT] [gtest flags]
              [-v|-q] [-s|--capture=METHOD] [-x|--maxfail=N] [-k EXPR]
      Run a suite. Without --cluster_file the cluster is this machine (no SSH);
      without --config_file the config is the shipped local_cpu_single.json.
      Without SUITE or --gtest_filter the suite follows the node count: aorta_single
      for one node, aorta_distributed for more. Examples:
        aorta_suite --gtest_filter=*single*
        aorta_suite --cluster_file cluster.json --config_file aorta_distributed.json --gtest_filter=*distributed*
        aorta_suite run aorta_distributed --cluster_file cluster.json --config_file aorta_distributed.json \
            --html aorta_distributed.html --junitxml junit.xml      (CVS's command form)
  aorta_suite list [aorta_single|aorta_distributed]
      Print the suites and their stages in run order.
  aorta_suite config list
      Print the shipped config and threshold files.
  aorta_suite config copy NAME --output FILE
      Copy a shipped file, e.g. mi3xx_aorta_profile_overlap_2gpu_single.json; copy its
      threshold file next to it too.
  aorta_suite config import FILE.yaml [--output FILE.json]
      Turn CVS's test_aorta config (aorta_benchmark.yaml) into a config and its
      <name>_threshold.json, and check that it loads.
  aorta_suite analyze TRACE_DIR [--output FILE] [--include-unlinked-kernels] [--jobs N]
      Compute per-rank and run metrics from the profiler traces under TRACE_DIR,
      reading N traces at once (default: one per core).
  aorta_suite compare BASELINE CANDIDATE [--max-regression [KEY=]PCT ...] [--output FILE]
      Two runs side by side (report JSONs, run folders or trace folders): per metric the
      values, change, ratio and verdict; a Mann-Whitney U test on the per-step times.
  aorta_suite COMMAND --help
      One command's options (run, list, config, analyze, compare).
  aorta_suite --help
  aorta_suite --version
      Print the version and the git commit this binary was built from.

Exit status: 0 every selected stage passed or was skipped by configuration;
1 a stage failed; 2 usage or configuration error.
)";
}

std::string command_help(Command command) {
  std::ostringstream out;
  switch (command) {
    case Command::kRun:
      out << "Usage: aorta_suite run [SUITE] [--cluster_file FILE] [--config_file FILE] [--output_dir DIR]\n"
             "                       [--workspace DIR] [--html FILE | --no-html] [--log-file FILE | --no-log-file]\n"
             "                       [--junitxml FILE] [--junit-shape gtest|cvs] [--baseline REPORT] [gtest flags]\n\n"
             "Runs one suite's stages, in order, as one session (one run id, one folder of reports).\n"
             "run is the default command: the word may be left out. SUITE (aorta_single or\n"
             "aorta_distributed) picks the suite, as `cvs run SUITE` does; --gtest_filter may narrow it.\n"
             "A configuration or node-count error runs nothing (exit 2) but still writes the reports\n"
             "asked for (--junitxml, --gtest_output=xml, --html, --log-file, --workspace) naming each problem.\n\n"
          << run_options()
          << "\nGoogleTest flags (GoogleTest 1.12):\n"
             "  --gtest_filter=PATTERNS    stages to run; also picks the suite when no cluster decides it\n"
             "  --gtest_list_tests         list the tests (with --config_file/--cluster_file: the tests that\n"
             "                             config would run; no node is touched, no folder created)\n"
             "  --gtest_output=xml[:PATH]  the JUnit file: xml alone writes test_detail.xml here, xml:DIR/\n"
             "                             writes DIR/<suite>.xml; json is refused\n"
             "  --gtest_color, --gtest_brief, --gtest_print_time, --gtest_fail_fast, ... as in gtest;\n"
             "                             NO_COLOR (non-empty) means --gtest_color=no unless one is given\n"
             "  Refused (exit 2): --gtest_repeat=N other than 1 and --gtest_shuffle (a run is one session of\n"
             "  stages in order; run the command again instead), --gtest_flagfile, --gtest_internal_*, and\n"
             "  any flag GoogleTest does not know. GTEST_REPEAT, GTEST_SHUFFLE, GTEST_OUTPUT and GTEST_COLOR\n"
             "  count as their flags.\n"
             "\npytest arguments, as `cvs run` passes them (one line at the start says what each did):\n"
             "  -v, -vv, -vvv, --verbose    each test and its outcome are printed, as always\n"
             "  -q, --quiet                 --gtest_brief=1 (verbosity below pytest's default: each -v adds one)\n"
             "  -s, --capture=fd|sys|no|tee-sys  accepted: a stage's output is printed and kept in the log\n"
             "  -x, --exitfirst, --maxfail=N     --gtest_fail_fast (N >= 1; 0 is no limit)\n"
             "  -k EXPR                     the stages and sub-tests EXPR matches, as pytest's -k matches (and,\n"
             "                              or, not, parentheses; a case-insensitive substring of the test's name,\n"
             "                              its stage's or <suite>.py); not with --gtest_filter. Anything else is refused.\n"
             "\nExit status: 0 every selected stage passed or was skipped by configuration; 1 a stage failed;\n"
             "2 usage or configuration error.\n";
      break;
    case Command::kAnalyze:
      out << "Usage: aorta_suite analyze TRACE_DIR [--output FILE] [--include-unlinked-kernels] [--jobs N]\n\n"
             "Computes per-rank and run metrics from the profiler traces under TRACE_DIR.\n\n"
          << analyze_options()
          << "\nExit status: 0 every trace parsed; 3 partial (the rest reported); 1 nothing parsed or the output\n"
             "could not be written; 2 usage error (also a bad AORTA_TRACE_MEMORY_LIMIT).\n";
      break;
    case Command::kCompare:
      out << "Usage: aorta_suite compare BASELINE CANDIDATE [--max-regression [KEY=]PCT ...] [--output FILE]\n\n"
             "Compares two runs. Each is an aorta_benchmark_report.json or analyze JSON, a run folder holding\n"
             "one, or a folder of traces (analyzed first). Per metric: both values, the change, the ratio and\n"
             "a verdict (better, worse, same, regressed past --max-regression); on the per-step times a\n"
             "two-sided Mann-Whitney U test (normal approximation, tie and continuity corrected; slower or\n"
             "faster when p < 0.05).\n\n"
          << compare_options()
          << "\nExit status: 0 no metric regressed past its limit; 1 one did; 2 usage error or an input that\n"
             "cannot be read.\n";
      break;
    case Command::kList:
      out << "Usage: aorta_suite list [aorta_single|aorta_distributed]\n\n"
             "Prints the suites and their stages in run order.\n\n"
          << plain_options();
      break;
    case Command::kConfigCopy:
    case Command::kConfigList:
    case Command::kConfigImport:
      out << "Usage: aorta_suite config list\n"
             "       aorta_suite config copy NAME --output FILE\n"
             "       aorta_suite config import FILE.yaml [--output FILE.json]\n\n"
             "Lists the shipped config and threshold files, copies one, or imports CVS's test_aorta YAML\n"
             "(never over an existing file).\n\n"
          << config_copy_options();
      break;
    case Command::kHelp:
    case Command::kVersion:
      return usage();
  }
  return out.str();
}

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
    if (command == "help") {
      o.command = Command::kHelp;
      return o;
    }
    for (const auto& sub : kSubcommands)
      if (command == sub.word) {
        o.command = sub.command;
        o.help = asks_help(rest);
        sub.parse(rest, o);
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
