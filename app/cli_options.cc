#include "app/cli_options.h"

#include <string>
#include <vector>

#include <boost/program_options.hpp>

namespace aorta::cli {
namespace po = boost::program_options;

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
      ("history", po::value<std::string>()->value_name("ROOT"),
       "the run folders under ROOT (as `aorta_suite history ROOT` reads them): the Run Deck adds a strip of this "
       "configuration's recent runs, each metric against its rolling baseline")
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
      ("ranks", po::value<std::string>()->value_name("all"),
       "all: a table row for every rank (past 8 ranks the table shows a summary, the outliers and the slowest)")
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

po::options_description history_options() {
  po::options_description d("Options");
  d.add_options()
      ("last", po::value<std::string>()->value_name("N"), "count the nodes and ranks named in the last N runs (default 20)")
      ("baseline-runs", po::value<std::string>()->value_name("K"),
       "the rolling baseline: the median of the last K passing runs of the same group (default 5)")
      ("output", po::value<std::string>()->value_name("FILE"), "also write the history as JSON here")
      ("html", po::value<std::string>()->value_name("FILE"),
       "also write the history as HTML here (history.html), its stylesheet history.css beside it")
      ("max-regression", po::value<std::string>()->value_name("PCT"),
       "exit 1 when a group's newest run is more than PCT % worse than its rolling baseline on a headline "
       "metric (points for a ratio), beyond noise")
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

}  // namespace aorta::cli
