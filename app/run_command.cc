#include "app/run_command.h"

#include <cstdlib>
#include <iostream>
#include <variant>

#include <gtest/gtest.h>

#include "app/compare_command.h"
#include "app/exit_codes.h"
#include "app/gtest_flags.h"
#include "app/live_log.h"
#include "app/step_progress.h"
#include "app/test_selection.h"
#include "app/managed_run.h"
#include "app/report_request.h"
#include "app/run_plan.h"
#include "app/slurm_preflight.h"
#include "app/transport_choice.h"
#include "common/interrupt.h"
#include "fixtures/lifecycle.h"
#include "fixtures/session.h"
#include "job/kernel_log.h"
#include "job/launch.h"
#include "report/aorta_listener.h"
#include "report/console_printer.h"
#include "report/junit_writer.h"
#include "result_json/metrics_json.h"
#include "stages/specs.h"
#include "report/run_figures.h"
#include "report/run_deck.h"
#include "suites/suites.h"

namespace aorta::app {
namespace {

// Our listener writes every report; gtest's own XML printer is released, since two
// JUnit files that disagree would confuse dashboards. --gtest_output=xml[:PATH] still
// gets a JUnit file: ours. Returns the listener (gtest owns it), or why it cannot
// write the reports asked for.
Result<report::AortaListener*> install_reports(fixtures::Session& session, const cli::Options& o,
                                               const ReportRequest& request, const std::string& suite,
                                               const metrics::RunFigures* baseline) {
  report::ReportSetup setup =
      report_setup(request, suite, session.state().output_root.filename().string(), session.state().output_root);
  if (!o.cluster_file.empty()) setup.input_files.emplace_back("cluster", o.cluster_file);
  const auto& v = session.variant();
  setup.input_files.emplace_back("config", v.file);
  setup.input_files.emplace_back("config", v.threshold_file);
  report::DeckSetup& deck = setup.deck;
  deck.variant = v;
  deck.nodes = session.cluster().nodes.size();
  deck.gpus_per_node = v.ranks_per_node();
  deck.nccl_channels = job::nccl_channels(v);
  deck.cluster_file = o.cluster_file;
  deck.config_file = v.file.string();
  if (baseline) deck.baseline = *baseline;
  deck.history_root = o.history_root;
  deck.lifecycle = suites::lifecycle();
  // What the run made, read once when the reports are written.
  auto products = [&state = session.state()] {
    return report::RunProducts{state.result, state.artifacts, state.report_file};
  };
  auto listener = report::AortaListener::create(std::move(setup), session.record(), request.outputs, products);
  if (!listener) return listener.error();
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_xml_generator());
  report::install_console_printer(listeners, {std::string(stages::kCollectTraces.test_name) + "/"});
  listeners.Append(listener->get());
  return listener->release();  // gtest owns it
}

// GoogleTest gets the checked pass-through flags and the filter; never an output
// flag (our listener writes the JUnit file).
void init_gtest(const char* argv0, const GtestFlags& flags, const std::string& filter) {
  std::vector<std::string> args = {argv0};
  args.insert(args.end(), flags.pass_through.begin(), flags.pass_through.end());
  // Flags win over gtest's environment variables: stages run once, in order.
  // Fail-fast is the run's (GtestFlags::fail_fast): gtest's would skip teardown unrun.
  args.insert(args.end(), {"--gtest_shuffle=0", "--gtest_repeat=1", "--gtest_fail_fast=0", "--gtest_filter=" + filter});
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int argc = static_cast<int>(args.size());
  ::testing::InitGoogleTest(&argc, argv.data());
  GTEST_FLAG_SET(output, "");  // a GTEST_OUTPUT variable is ours too (GtestFlags::junit)
}

// GoogleTest with the selection's filter, then the tests. Only the suite that fits the
// cluster is registered, with a test per threshold and per collecting node; listing
// without a config (no plan) shows both suites' stages.
void start_gtest(const char* argv0, const GtestFlags& flags, const TestSelection& selection, const Plan* plan) {
  std::vector<const fixtures::SuiteSpec*> registered;
  if (plan) registered.push_back(plan->suite);
  else
    for (const auto& suite : suites::all()) registered.push_back(&suite);
  const std::vector<std::string> hosts = plan ? host_names(plan->cluster) : std::vector<std::string>{};
  const config::Variant* variant = plan ? &plan->variant : nullptr;
  init_gtest(argv0, flags, selection.gtest_filter(registered, variant, hosts));
  for (const auto* suite : registered) suites::register_suite_tests(*suite, variant, hosts);
}

// The variables read before anything is created: AORTA_JUNIT_PREFIX and
// AORTA_JUNIT_FAMILY (with --junit-shape), and CVS_DMESG_PARSER. The first problem.
std::optional<std::string> environment_problem(const cli::Options& o) {
  if (auto junit = report::junit_options_from_environment(o.junit_shape); !junit) return junit.error().describe();
  if (auto dmesg = job::kernel_log_backend(std::getenv("CVS_DMESG_PARSER")); !dmesg) return dmesg.error().describe();
  return std::nullopt;
}

// Without --junit-shape the config's junit_shape is the JUnit file's; the problem, if
// it cannot be (the cvs shape with AORTA_JUNIT_FAMILY=xunit2), naming the config.
std::optional<std::string> take_config_junit_shape(const Plan& plan, ReportRequest& request) {
  if (!request.junit_shape.empty()) return std::nullopt;
  if (auto junit = report::junit_options_from_environment(plan.variant.junit_shape); !junit)
    return plan.config_file + ": junit_shape: " + junit.error().describe();
  request.junit_shape = plan.variant.junit_shape;
  return std::nullopt;
}

// What the run was asked for, checked in preflight: the gtest flags, the selection, the
// reports and, unless it lists the tests of no config, the plan.
struct RunInputs {
  GtestFlags flags;
  TestSelection selection;
  ReportRequest request;
  std::optional<Plan> plan;
  cli::Options options;  // the command line, its named files found (with_named_files)
};

// The run ended before its tests, everything already said: its exit status.
struct Exit {
  int code;
};

// A run that cannot start still leaves the reports asked for, naming why (a report that
// cannot be written is named on stderr; the exit status stays the problem's).
Exit refuse_with(const cli::Options& o, const RunInputs& in, const std::vector<std::string>& problems) {
  if (!in.flags.list_tests && !problems.empty()) write_problem_reports(in.request, problem_suite(o.suite, in.selection), problems);
  return Exit{kExitUsage};
}

// One problem: a usage error, and the reports name it.
Exit refuse(const cli::Options& o, const RunInputs& in, const std::string& problem) {
  usage_error(problem);
  return refuse_with(o, in, {problem});
}

// Preflight: the flags, the environment, the run's form and its plan, checked; only files
// are read. In a Slurm step, a task other than rank 0 serves as its node's agent here.
std::variant<RunInputs, Exit> preflight(const cli::Options& given) {
  const char* (*getenv)(const char*) = [](const char* name) -> const char* { return std::getenv(name); };
  auto flags = check_gtest_flags(given.gtest_args, getenv);
  if (!flags) return Exit{usage_error(flags.error().describe(), cli::Command::kRun)};
  if (auto problem = environment_problem(given)) return Exit{usage_error(*problem)};
  RunInputs in{*flags, TestSelection(flags->filter, given.pytest.keyword), report_request(given, *flags, getenv),
               std::nullopt, given};
  auto named = with_named_files(given);
  if (!named) return refuse(given, in, named.error().message);
  in.options = std::move(*named);
  const cli::Options& o = in.options;
  const bool configured = !o.config_file.empty() || !o.cluster_file.empty();  // listing: its suite, else both
  if (flags->list_tests && !configured) return in;
  auto form = run_form_from_environment(!o.cluster_file.empty());
  if (!form) return refuse(o, in, form.error().describe());
  const bool agent = serves_agent(*form);
  auto loaded = load_plan(o, *flags, in.selection, std::move(*form));
  if (auto* refused = std::get_if<Refusal>(&loaded))
    return agent ? Exit{kExitUsage} : refuse_with(o, in, refused->problems);  // rank 0 reports, once
  auto& plan = std::get<Plan>(loaded);
  if (agent) return Exit{serve_step_agent(plan.form, plan.variant)};
  if (auto problem = take_config_junit_shape(plan, in.request)) return refuse(o, in, *problem);
  in.plan = std::move(plan);
  return in;
}

// The session's transport and, when managed, the agents serving it (they end with the run).
struct RunTransport {
  std::unique_ptr<cluster::Transport> transport;
  std::unique_ptr<agent::AgentFleet> fleet;
};

// The agents when managed (started here), else SSH or this machine.
Result<RunTransport> run_transport(const Plan& plan) {
  if (!plan.form.job) {
    auto transport = make_transport(plan.cluster);
    if (!transport) return transport.error();
    return RunTransport{std::move(*transport), nullptr};
  }
  auto started = start_agents(plan.form, plan.cluster, plan.variant);
  if (!started) return Error{started.error().code, "the agents did not start: " + started.error().describe(), ""};
  auto transport = (*started)->transport();
  return RunTransport{std::move(transport), std::move(*started)};
}

// Where the reports go: the workspace's cvs_runs/<run-id>/, else the run's folder.
std::filesystem::path report_dir(const ReportRequest& request, const std::filesystem::path& output_root) {
  return request.report_dir(output_root.filename().string(), output_root);
}

// The run's folder and its session, checked before anything is run in it: the folder
// (and the report folder) usable, a Slurm job fit for the run.
std::variant<std::unique_ptr<fixtures::Session>, Exit> open_session(const cli::Options& o, const RunInputs& in,
                                                                    std::unique_ptr<cluster::Transport> transport) {
  const Plan& plan = *in.plan;
  std::filesystem::path output_dir = o.output_dir.empty() ? plan.variant.output_dir : o.output_dir;
  auto folder_name = run_folder_name(plan.form, output_dir, in.request.workspace);
  if (!folder_name) return refuse(o, in, folder_name.error().describe());
  auto session = std::make_unique<fixtures::Session>(*plan.suite, plan.variant, plan.cluster, std::move(transport),
                                                     output_dir, *folder_name);
  session->state().kernel_log_backend = job::kernel_log_backend(std::getenv("CVS_DMESG_PARSER")).value();  // checked
  const auto& output_root = session->state().output_root;
  if (auto problem = output_folder_problem(output_root, report_dir(in.request, output_root))) {
    std::cerr << "aorta_suite: " << problem->first << " cannot be used (nothing was run): " << problem->second << "\n";
    return refuse_with(o, in, {problem->first + " cannot be used: " + problem->second});
  }
  if (const auto& job = plan.form.job)
    if (auto problem = slurm_job_problem(*job, plan.cluster, plan.variant, plan.config_file, session->transport())) {
      std::error_code ec;
      std::filesystem::remove(output_root, ec);  // only when empty
      return refuse(o, in, *problem);
    }
  std::cout << "aorta_suite: " << plan.suite->name << " on " << plan.cluster.nodes.size() << " node(s), config "
            << plan.config_file << ", run " << session->state().run_id
            << (folder_name->empty() ? "" : ", folder " + output_root.string()) << "\n";
  return session;
}

// What --gtest_fail_fast (GtestFlags::fail_fast) does, said when it is given.
constexpr const char* kFailFastNote =
    "aorta_suite: fail-fast: the stages stop at the first failure; trace collection, parsing, the reports and "
    "teardown still run, so that nothing is lost\n";

// A run with --baseline shows the comparison on the console too, as `compare` prints it.
void print_against_baseline(const std::optional<metrics::RunFigures>& baseline, const job::RunState& state) {
  if (!baseline || !state.result) return;
  const metrics::RunFigures figures = report::run_figures(*state.result, "this run");
  std::cout << "\nAgainst the baseline:\n";
  print_comparison(metrics::compare_runs(*baseline, figures, {}), *baseline, figures);
}

// What a started run holds until it ends: the report paths claimed and, when managed,
// the agents.
struct Started {
  RunnerFilesWritten runner_files;
  std::unique_ptr<agent::AgentFleet> fleet;
};

// Start: the report paths claimed, what the pytest arguments and flags did said, the
// transport and the session opened and installed.
std::variant<Started, Exit> start(const cli::Options& o, const RunInputs& in) {
  const Plan& plan = *in.plan;
  // A usage error like a bad flag: the reports asked for cannot all be written, so none is.
  auto runner_files = claim_report_paths(in.request, plan.suite->name);  // held until the run ends
  if (!runner_files) return Exit{usage_error(runner_files.error().describe(), cli::Command::kRun)};
  if (o.pytest.any()) std::cout << cli::pytest_args_line(o.pytest) << "\n";
  if (in.flags.fail_fast) std::cout << kFailFastNote;
  if (!plan.form.job_id.empty() || std::getenv("CVS_SCHEDULER")) std::cout << "aorta_suite: " << plan.form.reason << "\n";
  // Managed: the agents first (the session's transport is theirs).
  auto transport = run_transport(plan);
  if (!transport) return refuse(o, in, transport.error().describe());
  auto session = open_session(o, in, std::move(transport->transport));
  if (auto* exit = std::get_if<Exit>(&session)) return *exit;
  fixtures::Session::install(std::move(std::get<std::unique_ptr<fixtures::Session>>(session)));
  return Started{std::move(*runner_files), std::move(transport->fleet)};
}

// The text log as the run writes it (when asked for): its path and first line.
struct LiveLog {
  std::filesystem::path path;
  std::string header;
};

struct Ran {
  int rc;  // RUN_ALL_TESTS's
  const report::AortaListener* listener;
  std::optional<LiveLog> live_log;
};

// Run: the reports and the live log installed, then the stages, interruptible.
std::variant<Ran, Exit> run_stages(const cli::Options& o, const RunInputs& in) {
  const Plan& plan = *in.plan;
  auto* s = fixtures::Session::current();
  const std::string& suite = plan.suite->name;
  auto listener = install_reports(*s, o, in.request, suite, plan.baseline ? &*plan.baseline : nullptr);
  if (!listener) return Exit{usage_error(listener.error().describe())};
  std::optional<LiveLog> live;
  if (in.request.wants("log")) {
    live = LiveLog{report::text_log_path(report_dir(in.request, s->state().output_root), suite, in.request.log_file),
                   live_log_header(suite, s->state().run_id)};
  }
  s->training_output = training_watchers(live ? live_log(live->path, live->header) : job::ProgressFn{},
                                         configured_max_steps(plan.variant));
  install_interrupt_handlers();
  return Ran{RUN_ALL_TESTS(), *listener, std::move(live)};
}

// Finish: the comparison with the baseline, the live log's leftovers, what ended the
// run, the agents ended; the exit status.
int finish(const Plan& plan, Started& started, const Ran& ran) {
  auto* s = fixtures::Session::current();
  print_against_baseline(plan.baseline, s->state());
  if (ran.live_log) remove_stale_live_log(ran.live_log->path, ran.live_log->header);
  if (interrupt_signal()) std::cerr << "aorta_suite: interrupted by " << interrupt_name() << "; cleaned up and reported\n";
  if (s->state().report_file) std::cout << "aorta_suite: report " << s->state().report_file->string() << "\n";
  if (started.fleet) started.fleet->finish();  // every agent ends what it started, and exits
  if (ran.listener->write_failed()) return kExitFailed;
  return ran.rc == 0 && !interrupt_signal() ? kExitOk : kExitFailed;
}

}  // namespace

int run_suite(const cli::Options& given, const char* argv0) {
  auto checked = preflight(given);
  if (auto* exit = std::get_if<Exit>(&checked)) return exit->code;
  const RunInputs& in = std::get<RunInputs>(checked);
  const cli::Options& o = in.options;
  start_gtest(argv0, in.flags, in.selection, in.plan ? &*in.plan : nullptr);
  if (in.flags.list_tests) return RUN_ALL_TESTS() == 0 ? kExitOk : kExitFailed;
  auto started = start(o, in);
  if (auto* exit = std::get_if<Exit>(&started)) return exit->code;
  auto ran = run_stages(o, in);
  if (auto* exit = std::get_if<Exit>(&ran)) return exit->code;
  return finish(*in.plan, std::get<Started>(started), std::get<Ran>(ran));
}

}  // namespace aorta::app
