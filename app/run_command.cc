#include "app/run_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "app/compare_command.h"
#include "app/exit_codes.h"
#include "app/gtest_flags.h"
#include "app/live_log.h"
#include "app/step_progress.h"
#include "app/test_selection.h"
#include "app/managed_run.h"
#include "app/report_request.h"
#include "app/slurm_preflight.h"
#include "app/transport_choice.h"
#include "common/output_path.h"
#include "common/interrupt.h"
#include "redact/known_secrets.h"
#include "common/utf8.h"
#include "config/cluster.h"
#include "config/shipped.h"
#include "config/variant_cluster.h"
#include "config/variant_loader.h"
#include "fixtures/lifecycle.h"
#include "fixtures/session.h"
#include "job/kernel_log.h"
#include "job/launch.h"
#include "report/aorta_listener.h"
#include "report/console_printer.h"
#include "report/junit_writer.h"
#include "result_json/metrics_json.h"
#include "report/run_figures.h"
#include "report/run_deck.h"
#include "slurm/job.h"
#include "suites/selection.h"
#include "suites/suites.h"

namespace aorta::app {
namespace {

std::vector<std::string> host_names(const config::Cluster& cluster) {
  std::vector<std::string> hosts;
  for (const auto& n : cluster.nodes) hosts.push_back(n.name);
  return hosts;
}

// Our listener writes every report; gtest's own XML printer is released, since two
// JUnit files that disagree would confuse dashboards. --gtest_output=xml[:PATH] still
// gets a JUnit file: ours. Returns the listener (gtest owns it).
report::AortaListener* install_reports(fixtures::Session& session, const cli::Options& o, const ReportRequest& request,
                                       const std::string& suite, const metrics::RunFigures* baseline) {
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
  deck.lifecycle = suites::lifecycle();
  // What the run made, read once when the reports are written.
  auto products = [&state = session.state()] {
    return report::RunProducts{state.result, state.artifacts, state.report_file};
  };
  auto listener = report::AortaListener::create(std::move(setup), session.record(), request.outputs, products);
  if (!listener) std::exit(usage_error(listener.error().describe()));
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_xml_generator());
  report::install_console_printer(listeners);
  listeners.Append(listener->get());  // gtest owns it
  return listener->release();
}

// What the config and cluster files say, checked: only files are read, no node is
// touched and nothing is created.
struct Plan {
  config::Cluster cluster;
  config::Variant variant;
  std::string config_file;
  slurm::RunForm form;                 // plain, a job step's task, or inside a job's allocation
  const fixtures::SuiteSpec* suite = nullptr;
  std::optional<metrics::RunFigures> baseline;  // --baseline, read before anything runs
};

// Every secret the config and cluster file hold is redacted wherever the run shows it,
// in whatever form the training echoes it (issue 29, 6).
void remember_secrets(const std::vector<std::string>& secrets) {
  for (const auto& s : secrets)
    if (!redact::add_known_secret(s)) {
      std::cerr << "aorta_suite: warning: the config holds more than " << redact::kMaxKnownSecretBytes / 1024
                << " KiB of secret values; the rest are redacted only where a key name or shape gives them away\n";
      return;
    }
}

// kExitOk with plan filled, or the exit status of errors already reported on stderr
// and each added to problems (for the reports of a run that could not start).
int load_plan(const cli::Options& o, const GtestFlags& flags, const TestSelection& selection, Plan& plan,
              std::vector<std::string>& problems) {
  auto form = run_form_from_environment(!o.cluster_file.empty());
  if (!form) {
    problems.push_back(form.error().describe());
    return usage_error(form.error().describe());
  }
  plan.form = std::move(*form);
  auto refuse = [&](const std::string& message) {
    problems.push_back(message);
    return usage_error(message);
  };
  std::string user = config::current_user_id();
  auto data_dir = config::shipped_data_dir();
  std::string workload = data_dir ? (data_dir.value() / "workload").string() : "";

  std::vector<config::ConfigError> errors;
  std::optional<config::Cluster> cluster;
  if (o.cluster_file.empty()) {
    cluster = config::local_cluster(user);
  } else {
    auto loaded = config::load_cluster(o.cluster_file, user);
    remember_secrets(loaded.secrets);
    for (const auto& w : loaded.warnings) std::cerr << "aorta_suite: warning: " << w.describe() << "\n";
    errors.insert(errors.end(), loaded.errors.begin(), loaded.errors.end());
    cluster = loaded.cluster;
  }
  plan.config_file = o.config_file;
  if (plan.config_file.empty()) {
    auto shipped = config::shipped_config(config::kDefaultVariant);
    if (!shipped) return refuse(shipped.error().message);
    plan.config_file = shipped->string();
  }
  auto variant = config::load_variant(plan.config_file, {cluster ? cluster->username : user, workload});
  remember_secrets(variant.secrets);
  errors.insert(errors.end(), variant.errors.begin(), variant.errors.end());
  if (!errors.empty()) {
    std::cerr << "aorta_suite: configuration errors (nothing was run):\n";
    for (const auto& e : errors) {
      std::cerr << "  " << e.describe() << "\n";
      problems.push_back(e.describe());
    }
    return kExitUsage;
  }
  const std::optional<slurm::SlurmJob>& job = plan.form.job;
  if (job) {
    // Managed: the job's (or step's) nodes, reached through agents.
    auto from_job = slurm::cluster_from_job(*job, user, o.cluster_file.empty() ? nullptr : &*cluster);
    if (!from_job) return refuse(from_job.error().describe());
    cluster = *from_job;
  }
  auto misfit = config::check_variant_for_cluster(*variant.variant, cluster->nodes.size());
  for (const auto& e : misfit) {
    std::cerr << "aorta_suite: configuration error (nothing was run): " << e.describe() << "\n";
    problems.push_back(e.describe());
  }
  if (!misfit.empty()) return kExitUsage;
  std::string error;
  const fixtures::SuiteSpec* suite = pick_suite(o.suite, selection, *variant.variant, host_names(*cluster), error);
  if (!suite) return refuse(job ? error + " (Slurm job " + job->id + " has " +
                                           std::to_string(cluster->nodes.size()) + " node(s))"
                                     : error);
  // A selection never hides a failure: one without the stages its tests need is refused
  // (listing runs nothing, so it may list any selection).
  if (auto problem = flags.list_tests ? std::nullopt
                                      : selection_problem(selection, *suite, *variant.variant, host_names(*cluster)))
    return refuse(*problem);
  if (!o.baseline.empty()) {
    auto baseline = report::load_run_figures(o.baseline);
    if (!baseline) return refuse("--baseline " + printable(baseline.error().message));
    plan.baseline = std::move(*baseline);
  }
  plan.cluster = std::move(*cluster);
  plan.variant = std::move(*variant.variant);
  plan.suite = suite;
  // No output may replace what the run reads (--log-file CONFIG).
  for (const auto& input : {plan.config_file, o.cluster_file, plan.variant.threshold_file.string(), o.baseline})
    if (!input.empty()) register_input(input);
  return kExitOk;
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

// The session's transport: the agents when managed (started here, kept by `fleet`),
// else SSH or this machine.
Result<std::unique_ptr<cluster::Transport>> run_transport(const Plan& plan, std::unique_ptr<agent::AgentFleet>& fleet) {
  if (!plan.form.job) return make_transport(plan.cluster);
  auto started = start_agents(plan.form, plan.cluster, plan.variant);
  if (!started) return Error{started.error().code, "the agents did not start: " + started.error().describe(), ""};
  fleet = std::move(*started);
  return fleet->transport();
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

}  // namespace

int run_suite(const cli::Options& o, const char* argv0) {
  auto flags = check_gtest_flags(o.gtest_args, [](const char* name) -> const char* { return std::getenv(name); });
  if (!flags) return usage_error(flags.error().describe(), cli::Command::kRun);
  if (auto problem = environment_problem(o)) return usage_error(*problem);
  const TestSelection selection(flags->filter, o.pytest.keyword);
  const bool configured = !o.config_file.empty() || !o.cluster_file.empty();  // listing: its suite, else both
  ReportRequest request = report_request(o, *flags, [](const char* name) -> const char* { return std::getenv(name); });
  // A run that cannot start still leaves the reports asked for, naming why.
  auto refused = [&](int code, const std::vector<std::string>& problems) {
    // A report that cannot be written is named on stderr; the verdict stays the problem's.
    if (!flags->list_tests && !problems.empty()) write_problem_reports(request, problem_suite(o.suite, selection), problems);
    return code;
  };
  std::optional<Plan> plan;
  if (!flags->list_tests || configured) {
    plan.emplace();
    std::vector<std::string> problems;
    if (int code = load_plan(o, *flags, selection, *plan, problems); code != kExitOk)
      return serves_agent(plan->form) ? code : refused(code, problems);  // rank 0 reports, once
    if (serves_agent(plan->form)) return serve_step_agent(plan->form, plan->variant);
    if (auto problem = take_config_junit_shape(*plan, request)) return refused(usage_error(*problem), {*problem});
  }
  start_gtest(argv0, *flags, selection, plan ? &*plan : nullptr);
  if (flags->list_tests) return RUN_ALL_TESTS() == 0 ? kExitOk : kExitFailed;

  // A usage error like a bad flag: the reports asked for cannot all be written, so none is.
  auto runner_files = claim_report_paths(request, plan->suite->name);  // held until the run ends
  if (!runner_files) return usage_error(runner_files.error().describe(), cli::Command::kRun);
  if (o.pytest.any()) std::cout << cli::pytest_args_line(o.pytest) << "\n";
  if (flags->fail_fast) std::cout << kFailFastNote;
  if (!plan->form.job_id.empty() || std::getenv("CVS_SCHEDULER")) std::cout << "aorta_suite: " << plan->form.reason << "\n";
  // Managed: the agents first (the session's transport is theirs); they end with the run.
  std::unique_ptr<agent::AgentFleet> fleet;
  auto transport = run_transport(*plan, fleet);
  if (!transport) return refused(usage_error(transport.error().describe()), {transport.error().describe()});
  std::filesystem::path output_dir = o.output_dir.empty() ? plan->variant.output_dir : o.output_dir;
  const std::string suite = plan->suite->name;
  auto folder_name = run_folder_name(plan->form, output_dir, request.workspace);
  if (!folder_name) return refused(usage_error(folder_name.error().describe()), {folder_name.error().describe()});
  auto session = std::make_unique<fixtures::Session>(*plan->suite, plan->variant, plan->cluster,
                                                     std::move(*transport), output_dir, *folder_name);
  session->state().kernel_log_backend = job::kernel_log_backend(std::getenv("CVS_DMESG_PARSER")).value();  // checked
  const auto& output_root = session->state().output_root;
  const auto report_dir = request.report_dir(output_root.filename().string(), output_root);
  if (auto problem = output_folder_problem(output_root, report_dir)) {
    std::cerr << "aorta_suite: " << problem->first << " cannot be used (nothing was run): " << problem->second << "\n";
    return refused(kExitUsage, {problem->first + " cannot be used: " + problem->second});
  }
  if (const auto& job = plan->form.job)
    if (auto problem = slurm_job_problem(*job, plan->cluster, plan->variant, plan->config_file, session->transport())) {
      std::error_code ec;
      std::filesystem::remove(session->state().output_root, ec);  // only when empty
      return refused(usage_error(*problem), {*problem});
    }
  std::cout << "aorta_suite: " << suite << " on " << plan->cluster.nodes.size() << " node(s), config "
            << plan->config_file << ", run " << session->state().run_id
            << (folder_name->empty() ? "" : ", folder " + session->state().output_root.string()) << "\n";
  fixtures::Session::install(std::move(session));

  auto* s = fixtures::Session::current();
  report::AortaListener* listener = install_reports(*s, o, request, suite, plan->baseline ? &*plan->baseline : nullptr);
  const bool logging = request.wants("log");
  const std::filesystem::path log_path = report::text_log_path(report_dir, suite, request.log_file);
  const std::string live_header = live_log_header(suite, s->state().run_id);
  s->training_output = training_watchers(logging ? live_log(log_path, live_header) : job::ProgressFn{},
                                         configured_max_steps(plan->variant));
  install_interrupt_handlers();
  int rc = RUN_ALL_TESTS();
  print_against_baseline(plan->baseline, s->state());
  if (logging) remove_stale_live_log(log_path, live_header);
  if (interrupt_signal()) std::cerr << "aorta_suite: interrupted by " << interrupt_name() << "; cleaned up and reported\n";
  if (s->state().report_file) std::cout << "aorta_suite: report " << s->state().report_file->string() << "\n";
  if (fleet) fleet->finish();  // every agent ends what it started, and exits
  if (listener->write_failed()) return kExitFailed;
  return rc == 0 && !interrupt_signal() ? kExitOk : kExitFailed;
}

}  // namespace aorta::app
