// aorta_suite's entry point: its own subcommands (list, config, analyze), then the
// config checks that must pass before any node is touched, then GoogleTest.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "cluster/srun_transport.h"
#include "cluster/ssh_transport.h"
#include "common/atomic_file.h"
#include "common/interrupt.h"
#include "common/version.h"
#include "common/shell_quote.h"
#include "common/utf8.h"
#include "config/cluster.h"
#include "config/shipped.h"
#include "config/variant_cluster.h"
#include "config/variant_loader.h"
#include "fixtures/lifecycle.h"
#include "fixtures/session.h"
#include "metrics/trace_set.h"
#include "report/aorta_listener.h"
#include "report/run_deck.h"
#include "job/launch.h"
#include "report/metrics_json.h"
#include "report/summary_table.h"
#include "slurm/job.h"
#include "suites/cli.h"
#include "suites/suites.h"

namespace {

using namespace aorta;
using fixtures::SuiteKind;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

int usage_error(const std::string& message) {
  std::cerr << "aorta_suite: " << message << "\n\n" << cli::usage();
  return kExitUsage;
}

int list_suites(const std::string& only) {
  bool found = false;
  for (SuiteKind kind : {SuiteKind::kSingle, SuiteKind::kDistributed}) {
    if (!only.empty() && only != fixtures::suite_name(kind)) continue;
    found = true;
    std::cout << fixtures::suite_name(kind) << "\n";
    int n = 1;
    for (const auto& s : suites::suite_stages(kind)) std::cout << "  " << n++ << ". " << s.test_name << "\n";
  }
  if (!found) return usage_error("unknown suite '" + only + "'; suites are aorta_single and aorta_distributed");
  return kExitOk;
}

// analyze's exit status: 0 every trace parsed; 3 partial (the files and folders
// in parse.errors were not analyzed, the other ranks' numbers are reported); 1
// nothing parsed, or the output could not be written; 2 usage (also a bad
// AORTA_TRACE_MEMORY_LIMIT). Scripts can tell a partial parse without the JSON.
int analyze(const cli::Options& o) {
  constexpr int kExitPartial = 3;
  // The boundary for everything below: running out of memory outside a trace's own
  // budget, or any other exception, is a message and exit 1, never an abort.
  try {
    auto limits = trace::trace_limits_from_environment();
    if (!limits) return usage_error(limits.error().describe());
    metrics::AnalyzeOptions options;
    options.jobs = o.jobs;
    options.limits = *limits;
    options.selection = o.include_unlinked ? trace::KernelSelection::kIncludeUnlinked : trace::KernelSelection::kLinkedOnly;
    metrics::TraceSet set = metrics::analyze_traces(o.trace_dir, options);
    for (const auto& w : set.warnings) std::cerr << "warning: " << w << "\n";
    for (const auto& e : set.errors) std::cerr << "error: " << e << "\n";
    report::ordered_json doc;
    doc["trace_dir"] = valid_utf8(o.trace_dir);
    doc["kernel_selection"] = o.include_unlinked ? "include_unlinked" : "linked_only";
    doc["parse"] = report::parse_json(set);
    std::ostream& table = o.output.empty() ? std::cerr : std::cout;
    if (!set.ranks.empty()) {
      auto run = metrics::aggregate(set.ranks);
      if (!run) {
        std::cerr << "error: " << run.error().message << "\n";
        return kExitFailed;
      }
      doc["performance"] = report::performance_json(*run);
      doc["per_rank_summary"] = report::per_rank_json(*run);
      report::write_summary_table(*run, table);
    }
    // Every string in doc is valid UTF-8 already (TraceSet's contract); json_text's
    // replacement is the second guard, so a byte that slips through never costs the output.
    const std::string text = report::json_text(doc);
    if (o.output.empty()) {
      std::cout << text;
    } else {
      // Whole or not at all: an earlier output survives a failed write.
      if (Status written = write_file_atomically(o.output, text); !written) {
        std::cerr << "error: " << written.error().describe() << "\n";
        return kExitFailed;
      }
      std::cout << "wrote " << o.output << " (" << metrics::status_name(set.status) << ")\n";
    }
    switch (set.status) {
      case metrics::ParseStatus::kSuccess: return kExitOk;
      case metrics::ParseStatus::kPartial: return kExitPartial;
      case metrics::ParseStatus::kFailed: return kExitFailed;
    }
    return kExitFailed;
  } catch (const std::bad_alloc&) {
    std::cerr << "aorta_suite analyze: out of memory (lower " << trace::kMemoryLimitVariable << " or --jobs)\n";
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite analyze: " << e.what() << "\n";
  }
  return kExitFailed;
}

// The suite the run selects, or an error (exit 2).
std::optional<SuiteKind> pick_suite(const std::optional<std::string>& filter, const config::Variant& variant,
                                    const std::vector<std::string>& hosts, std::string& error) {
  size_t nodes = hosts.size();
  std::vector<SuiteKind> selected;
  for (SuiteKind kind : {SuiteKind::kSingle, SuiteKind::kDistributed}) {
    bool any = !filter;
    for (const auto& t : suites::planned_tests(kind, &variant, hosts))
      if (filter && cli::filter_matches(*filter, std::string(fixtures::suite_name(kind)) + "." + t.name())) any = true;
    if (any) selected.push_back(kind);
  }
  if (selected.empty()) {
    error = "--gtest_filter=" + *filter + " selects no stage of aorta_single or aorta_distributed";
    return std::nullopt;
  }
  for (SuiteKind kind : selected)
    if (!fixtures::node_count_error(kind, nodes)) return kind;
  error = *fixtures::node_count_error(selected.front(), nodes);
  return std::nullopt;
}

// Our listener writes every report; gtest's own XML printer is released, since two
// JUnit files that disagree would confuse dashboards. --gtest_output=xml:PATH still
// gets a JUnit file: ours. Returns the listener (gtest owns it).
report::AortaListener* install_reports(fixtures::Session& session, const cli::Options& o, const std::string& suite) {
  report::ReportContext context;
  context.report_dir = session.state().output_root;
  std::string output = ::testing::GTEST_FLAG(output);
  if (output.rfind("xml:", 0) == 0) {
    std::filesystem::path p = output.substr(4);
    context.extra_junit_paths.push_back(output.back() == '/' ? p / (suite + ".xml") : p);
  } else if (!output.empty() && output != "xml") {
    std::cerr << "aorta_suite: --gtest_output=" << output << " is not supported; the JUnit XML is written to "
              << session.state().output_root.string() << "\n";
  }
  auto junit = report::junit_options_from_environment();
  if (!junit) std::exit(usage_error(junit.error().describe()));  // before any node is touched
  context.junit = *junit;
  if (!o.cluster_file.empty()) context.input_files.emplace_back("cluster", o.cluster_file);
  const auto& v = session.variant();
  context.input_files.emplace_back("config", v.file);
  context.input_files.emplace_back("config", v.threshold_file);
  context.deck = {&v, session.cluster().nodes.size(), v.ranks_per_node(), job::nccl_channels(v), &session.state().result,
                  o.cluster_file, v.file.string(), ""};
  auto details = [s = &session](const std::string& test_name) -> std::optional<report::StageResult> {
    if (const auto* r = s->find_record(test_name)) return *r;
    return std::nullopt;
  };
  auto listener = report::AortaListener::create(std::move(context), suite, session.state().run_id, details);
  if (!listener) std::exit(usage_error(listener.error().describe()));
  auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
  delete listeners.Release(listeners.default_xml_generator());
  listeners.Append(listener->get());  // gtest owns it
  return listener->release();
}

// Before anything runs in a Slurm job: GPUs per node against GRES, the time limit
// against the run's worst case, and the files every node must see at the same path.
int check_slurm_job(const slurm::SlurmJob& job, const config::Cluster& cluster, const config::Variant& v,
                    const std::string& config_file) {
  std::cout << "aorta_suite: inside Slurm job " << job.id << " on " << cluster.nodes.size()
            << " node(s); commands go through srun\n";
  if (!job.gpus_per_node)
    std::cout << "aorta_suite: the job requested no GPUs through GRES, so GPUs per node cannot be checked; "
                 "using gpus_per_node "
              << v.gpus_per_node << " from the config\n";
  else if (*job.gpus_per_node < v.gpus_per_node)
    return usage_error("Slurm job " + job.id + " has " + std::to_string(*job.gpus_per_node) +
                       " GPU(s) per node, the config needs gpus_per_node " + std::to_string(v.gpus_per_node));
  cluster::LocalTransport local;
  auto left = local.run("localhost", "squeue -h -j " + shell_quote(job.id) + " -o %L", std::chrono::seconds(30));
  if (auto seconds = left && left->exit_code == 0 ? slurm::parse_time_left(left->output) : std::nullopt) {
    long needed = v.timeout_seconds + 300 + (v.skip_rccl_build ? 0 : v.timeout_seconds);
    if (*seconds < needed)
      std::cout << "aorta_suite: WARNING: Slurm job " << job.id << " has " << *seconds
                << " s left, less than timeout_seconds plus container launch" << (v.skip_rccl_build ? "" : " and RCCL build")
                << " (" << needed << " s); the scheduler may end the run before teardown\n";
  }
  cluster::SrunTransport srun(job.id);
  // aorta_path may not exist yet: a marker written here beside it must be visible on
  // every node, which proves the storage is shared (a path that merely exists
  // everywhere, like /tmp, would not).
  std::filesystem::path marker = std::filesystem::path(v.aorta_path).parent_path() / (".aorta_suite_shared_" + job.id);
  std::error_code ec;
  // Private from the start (the working folder's rule), and the marker is a new file:
  // O_EXCL|O_NOFOLLOW never writes through a link someone planted at its name.
  mode_t old_mask = ::umask(077);
  std::filesystem::create_directories(marker.parent_path(), ec);
  ::umask(old_mask);
  int fd = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return usage_error("cannot create " + marker.string() + " (" + std::strerror(errno) +
                       "): aorta_path's folder must be yours and hold no such file");
  static constexpr char kText[] = "written by aorta_suite on the job's first node\n";
  bool written = ::write(fd, kText, sizeof kText - 1) == static_cast<ssize_t>(sizeof kText - 1);
  ::close(fd);
  struct RemoveMarker {
    std::filesystem::path path;
    ~RemoveMarker() { std::error_code ignored; std::filesystem::remove(path, ignored); }
  } remove_marker{marker};
  if (!written) return usage_error("cannot write " + marker.string() + ": " + std::strerror(errno));
  std::string check;
  for (const auto& path : {std::filesystem::absolute(config_file).string(), std::filesystem::absolute(v.threshold_file).string(),
                           marker.string()})
    check += (check.empty() ? "" : "; ") + std::string("test -e ") + shell_quote(path) + " || echo " + shell_quote(path);
  std::vector<std::string> hosts;
  for (const auto& n : cluster.nodes) hosts.push_back(n.name);
  std::string missing;
  for (const auto& r : cluster::run_everywhere(srun, hosts, check, std::chrono::seconds(120))) {
    if (!r.result) missing += "\n  " + r.host + ": " + r.result.error().message;
    else if (!r.result->output.empty()) missing += "\n  " + r.host + " cannot see: " + r.result->output;
  }
  if (!missing.empty())
    return usage_error("the config file, its threshold file and aorta_path's folder must be on storage every node "
                       "of the job sees at the same path:" + missing);
  return kExitOk;
}

// An output_dir that cannot take files (an existing file, a read-only or full
// disk) is found before any node is touched, not after the benchmark: the run's
// folder is created and a probe file written and removed. The reason, or nothing.
std::optional<std::string> check_output_root(const std::filesystem::path& root) {
  std::error_code ec;
  std::filesystem::create_directories(root, ec);
  if (ec) return root.string() + ": cannot create the run's output folder: " + ec.message();
  if (Status s = write_file_atomically(root / ".aorta_suite_probe", "aorta_suite checks that it can write here\n"); !s) {
    std::filesystem::remove(root, ec);  // only when empty
    return s.error().describe();
  }
  std::filesystem::remove(root / ".aorta_suite_probe", ec);
  return std::nullopt;
}

// srun inside a Slurm job, local processes for the built-in local cluster, libssh2
// for a cluster file's nodes.
Result<std::unique_ptr<cluster::Transport>> make_transport(const config::Cluster& c,
                                                           const std::optional<slurm::SlurmJob>& job) {
  if (job) return std::unique_ptr<cluster::Transport>(new cluster::SrunTransport(job->id));
  if (c.transport == config::TransportKind::kLocal) return std::unique_ptr<cluster::Transport>(new cluster::LocalTransport);
  cluster::SshOptions ssh;
  ssh.user = c.username;
  ssh.private_key = c.priv_key_file;
  ssh.password = c.password;
  ssh.port = c.ssh.port;
  ssh.known_hosts = c.ssh.known_hosts;
  ssh.check_host_key = c.ssh.strict_host_key_checking;
  ssh.connect_timeout = std::chrono::seconds(c.ssh.connect_timeout_seconds);
  ssh.key_passphrase_env = c.ssh.key_passphrase_env;
  ssh.agent_socket = c.ssh.agent_socket;
  if (c.ssh.jump_host)
    ssh.jump = cluster::SshJumpOptions{c.ssh.jump_host->host, c.ssh.jump_host->port, c.ssh.jump_host->user,
                                       c.ssh.jump_host->priv_key_file, c.ssh.jump_host->known_hosts, ""};
  auto t = cluster::SshTransport::create(std::move(ssh));
  if (!t) return Error{t.error().code, t.error().message, c.file.string()};
  return std::unique_ptr<cluster::Transport>(std::move(*t));
}

int run_suite(const cli::Options& o, const char* argv0) {
  std::string user = config::current_user_id();
  auto data_dir = config::shipped_data_dir();
  std::string workload = data_dir ? (data_dir.value() / "workload").string() : "";

  std::vector<config::ConfigError> errors;
  std::optional<config::Cluster> cluster;
  if (o.cluster_file.empty()) {
    cluster = config::local_cluster(user);
  } else {
    auto loaded = config::load_cluster(o.cluster_file, user);
    errors.insert(errors.end(), loaded.errors.begin(), loaded.errors.end());
    cluster = loaded.cluster;
  }
  std::string config_file = o.config_file;
  if (config_file.empty()) {
    auto shipped = config::shipped_config(config::kDefaultVariant);
    if (!shipped) return usage_error(shipped.error().message);
    config_file = shipped->string();
  }
  auto variant = config::load_variant(config_file, {cluster ? cluster->username : user, workload});
  errors.insert(errors.end(), variant.errors.begin(), variant.errors.end());
  if (!errors.empty()) {
    std::cerr << "aorta_suite: configuration errors (nothing was run):\n";
    for (const auto& e : errors) std::cerr << "  " << e.describe() << "\n";
    return kExitUsage;
  }
  auto filter = cli::gtest_filter(o.gtest_args);
  std::string error;
  auto job = slurm::job_from_environment([](const char* name) -> const char* { return std::getenv(name); });
  if (!job) return usage_error(job.error().describe());
  if (*job) {
    // Inside a Slurm job: the job's nodes, reached through srun.
    auto from_job = slurm::cluster_from_job(**job, user, o.cluster_file.empty() ? nullptr : &*cluster);
    if (!from_job) return usage_error(from_job.error().describe());
    cluster = *from_job;
  }
  auto misfit = config::check_variant_for_cluster(*variant.variant, cluster->nodes.size());
  for (const auto& e : misfit) std::cerr << "aorta_suite: configuration error (nothing was run): " << e.describe() << "\n";
  if (!misfit.empty()) return kExitUsage;
  std::vector<std::string> hosts;
  for (const auto& n : cluster->nodes) hosts.push_back(n.name);
  auto kind = pick_suite(filter, *variant.variant, hosts, error);
  if (!kind) return usage_error(*job ? error + " (Slurm job " + (*job)->id + " has " +
                                           std::to_string(cluster->nodes.size()) + " node(s))"
                                     : error);
  auto transport = make_transport(*cluster, *job);
  if (!transport) return usage_error(transport.error().describe());

  std::vector<std::string> gtest_args = {argv0};
  for (const auto& a : o.gtest_args)
    if (a.rfind("--gtest_filter=", 0) != 0) gtest_args.push_back(a);
  // Only the suite that fits the cluster's node count is registered.
  std::string suite = fixtures::suite_name(*kind);
  if (filter) gtest_args.push_back("--gtest_filter=" + *filter);

  std::filesystem::path output_dir = o.output_dir.empty() ? variant.variant->output_dir : o.output_dir;
  auto session = std::make_unique<fixtures::Session>(*kind, *variant.variant, *cluster,
                                                     std::move(*transport), output_dir);
  if (auto problem = check_output_root(session->state().output_root)) {
    std::cerr << "aorta_suite: output_dir cannot be used (nothing was run): " << *problem << "\n";
    return kExitUsage;
  }
  if (*job)
    if (int code = check_slurm_job(**job, *cluster, *variant.variant, config_file); code != kExitOk) {
      std::error_code ec;
      std::filesystem::remove(session->state().output_root, ec);  // only when empty
      return code;
    }
  std::cout << "aorta_suite: " << suite << " on " << cluster->nodes.size() << " node(s), config " << config_file
            << ", run " << session->state().run_id << "\n";
  fixtures::Session::install(std::move(session));

  std::vector<char*> gtest_argv;
  for (auto& a : gtest_args) gtest_argv.push_back(a.data());
  int gtest_argc = static_cast<int>(gtest_argv.size());
  ::testing::InitGoogleTest(&gtest_argc, gtest_argv.data());
  auto* s = fixtures::Session::current();
  suites::register_suite_tests(*kind, &s->variant(), hosts);
  report::AortaListener* listener = install_reports(*s, o, suite);
  install_interrupt_handlers();
  int rc = RUN_ALL_TESTS();
  if (interrupt_signal()) std::cerr << "aorta_suite: interrupted by " << interrupt_name() << "; cleaned up and reported\n";
  if (s->state().report_file) std::cout << "aorta_suite: report " << s->state().report_file->string() << "\n";
  if (listener->write_failed()) return kExitFailed;
  return rc == 0 && !interrupt_signal() ? kExitOk : kExitFailed;
}

int run_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  for (const auto& a : args)
    if (a == "--gtest_list_tests" || a.rfind("--gtest_list_tests=", 0) == 0) {
      ::testing::InitGoogleTest(&argc, argv);
      for (SuiteKind kind : {SuiteKind::kSingle, SuiteKind::kDistributed}) suites::register_suite_tests(kind, nullptr, {});
      return RUN_ALL_TESTS();
    }
  cli::Options o = cli::parse(args);
  if (!o.error.empty()) return usage_error(o.error);
  switch (o.command) {
    case cli::Command::kHelp:
      std::cout << cli::usage();
      return kExitOk;
    case cli::Command::kVersion:
      std::cout << version_line() << "\n";
      return kExitOk;
    case cli::Command::kList:
      return list_suites(o.suite);
    case cli::Command::kConfigList:
      for (const auto& n : config::shipped_config_names()) std::cout << n << "\n";
      return kExitOk;
    case cli::Command::kConfigCopy:
      if (Status s = config::copy_shipped_config(o.config_name, o.output); !s) return usage_error(s.error().message);
      std::cout << "copied " << o.config_name << " to " << o.output << "\n";
      return kExitOk;
    case cli::Command::kAnalyze:
      return analyze(o);
    case cli::Command::kRun:
      return run_suite(o, argv[0]);
  }
  return kExitUsage;
}

}  // namespace

// Nothing escapes main: an exception is a bug, reported with its text, exit 1.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "aorta_suite: internal error: " << aorta::valid_utf8(e.what()) << "\n";
  } catch (...) {
    std::cerr << "aorta_suite: internal error: an exception that is not a std::exception\n";
  }
  return kExitFailed;
}
