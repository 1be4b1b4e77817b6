#include "app/run_plan.h"

#include <iostream>
#include <utility>

#include "app/exit_codes.h"
#include "redact/known_secrets.h"
#include "common/output_path.h"
#include "common/utf8.h"
#include "config/shipped.h"
#include "config/variant_cluster.h"
#include "config/variant_loader.h"
#include "report/run_figures.h"
#include "slurm/job.h"

namespace aorta::app {
namespace {

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

// One problem, said as a usage error.
Refusal refuse(const std::string& message) {
  usage_error(message);
  return Refusal{{message}};
}

// Errors found in the files, each said under one heading.
Refusal refuse_errors(const char* heading, const std::vector<config::ConfigError>& errors) {
  Refusal refusal;
  if (*heading) std::cerr << heading;
  for (const auto& e : errors) {
    std::cerr << (*heading ? "  " : "aorta_suite: configuration error (nothing was run): ") << e.describe() << "\n";
    refusal.problems.push_back(e.describe());
  }
  return refusal;
}

struct Files {
  config::Cluster cluster;
  config::Variant variant;
  std::string config_file;
};

// The cluster file's nodes (this machine without one) and the config (the shipped
// default without one), read; every error of both is one refusal.
std::variant<Files, Refusal> read_files(const cli::Options& o, const std::string& user) {
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
  std::string config_file = o.config_file;
  if (config_file.empty()) {
    auto shipped = config::shipped_config(config::kDefaultVariant);
    if (!shipped) return refuse(shipped.error().message);
    config_file = shipped->string();
  }
  auto variant = config::load_variant(config_file, {cluster ? cluster->username : user, workload});
  remember_secrets(variant.secrets);
  errors.insert(errors.end(), variant.errors.begin(), variant.errors.end());
  if (!errors.empty()) return refuse_errors("aorta_suite: configuration errors (nothing was run):\n", errors);
  return Files{std::move(*cluster), std::move(*variant.variant), config_file};
}

// The nodes the run is on: in a Slurm job the job's (or step's), reached through
// agents, else the files'. The config must fit their count.
std::variant<config::Cluster, Refusal> run_cluster(const cli::Options& o, const slurm::RunForm& form,
                                                   const std::string& user, config::Cluster cluster,
                                                   const config::Variant& variant) {
  if (form.job) {
    auto from_job = slurm::cluster_from_job(*form.job, user, o.cluster_file.empty() ? nullptr : &cluster);
    if (!from_job) return refuse(from_job.error().describe());
    cluster = *from_job;
  }
  auto misfit = config::check_variant_for_cluster(variant, cluster.nodes.size());
  if (!misfit.empty()) return refuse_errors("", misfit);
  return cluster;
}

// The suite that fits the nodes (or the one named). A selection never hides a failure:
// one without the stages its tests need is refused (listing runs nothing, so it may
// list any selection).
std::variant<const fixtures::SuiteSpec*, Refusal> run_suite_spec(const cli::Options& o, const GtestFlags& flags,
                                                                 const TestSelection& selection,
                                                                 const slurm::RunForm& form,
                                                                 const config::Cluster& cluster,
                                                                 const config::Variant& v) {
  std::string error;
  const fixtures::SuiteSpec* suite = pick_suite(o.suite, selection, v, host_names(cluster), error);
  if (!suite) return refuse(form.job ? error + " (Slurm job " + form.job->id + " has " +
                                           std::to_string(cluster.nodes.size()) + " node(s))"
                                     : error);
  if (auto problem = flags.list_tests ? std::nullopt : selection_problem(selection, *suite, v, host_names(cluster)))
    return refuse(*problem);
  return suite;
}

}  // namespace

Result<cli::Options> with_named_files(const cli::Options& o) {
  cli::Options found = o;
  for (auto [flag, file] :
       {std::pair{"--config_file", &found.config_file}, std::pair{"--cluster_file", &found.cluster_file}}) {
    if (file->empty()) continue;
    auto named = config::find_named_file(flag, *file);
    if (!named) return named.error();
    if (!named->note.empty()) std::cerr << "aorta_suite: " << printable(named->note) << "\n";
    *file = named->path.string();
  }
  return found;
}

std::vector<std::string> host_names(const config::Cluster& cluster) {
  std::vector<std::string> hosts;
  for (const auto& n : cluster.nodes) hosts.push_back(n.name);
  return hosts;
}

std::variant<Plan, Refusal> load_plan(const cli::Options& o, const GtestFlags& flags, const TestSelection& selection,
                                      slurm::RunForm form) {
  const std::string user = config::current_user_id();
  auto read = read_files(o, user);
  if (auto* refused = std::get_if<Refusal>(&read)) return std::move(*refused);
  auto& files = std::get<Files>(read);
  auto nodes = run_cluster(o, form, user, std::move(files.cluster), files.variant);
  if (auto* refused = std::get_if<Refusal>(&nodes)) return std::move(*refused);
  auto& cluster = std::get<config::Cluster>(nodes);
  auto picked = run_suite_spec(o, flags, selection, form, cluster, files.variant);
  if (auto* refused = std::get_if<Refusal>(&picked)) return std::move(*refused);
  Plan plan{std::move(cluster), std::move(files.variant), files.config_file, std::move(form),
            std::get<const fixtures::SuiteSpec*>(picked), std::nullopt};
  if (!o.baseline.empty()) {
    auto baseline = report::load_run_figures(o.baseline);
    if (!baseline) return refuse("--baseline " + printable(baseline.error().message));
    plan.baseline = std::move(*baseline);
  }
  // No output may replace what the run reads (--log-file CONFIG).
  for (const auto& input : {plan.config_file, o.cluster_file, plan.variant.threshold_file.string(), o.baseline})
    if (!input.empty()) register_input(input);
  return plan;
}

}  // namespace aorta::app
