#include "config/variant_rules.h"

#include <algorithm>
#include <cmath>
#include <cctype>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "metrics/threshold_catalogue.h"

namespace aorta::config {
namespace {

// POSIX normalisation: collapse //, drop ., drop a trailing /. ".." is kept so the
// caller can reject it.
std::string normalize(const std::string& path) {
  std::vector<std::string> parts;
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '/'))
    if (!part.empty() && part != ".") parts.push_back(part);
  std::string out = path.rfind('/', 0) == 0 ? "/" : "";
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? "/" : "") + parts[i];
  return out.empty() ? "." : out;
}

bool has_dotdot(const std::string& path) {
  std::stringstream in(path);
  std::string part;
  while (std::getline(in, part, '/'))
    if (part == "..") return true;
  return false;
}

std::string python_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i ? ", '" : "'") + items[i] + "'";
  return out + "]";
}

void check_absolute_dir(const std::string& name, const std::string& value, ConfigErrors& errors) {
  if (value.empty() || value[0] != '/' || normalize(value) == "/" || has_dotdot(value))
    errors.add(name, name + " must be an absolute directory other than /");
}

void check_relative_script(const std::string& name, const std::string& value, ConfigErrors& errors) {
  if (value.empty() || value[0] == '/' || has_dotdot(value))
    errors.add(name, "Script/config paths must be relative to the Aorta repository: '" + value + "'");
}

// A volume "host:container[:opts]" that mounts aorta_path writable at the mount path.
bool is_writable_repo_mount(const std::string& volume, const Variant& v) {
  size_t first = volume.find(':');
  if (first == std::string::npos) return false;
  size_t second = volume.find(':', first + 1);
  std::string host = volume.substr(0, first);
  std::string target = volume.substr(first + 1, second == std::string::npos ? std::string::npos : second - first - 1);
  std::string opts = second == std::string::npos ? "" : volume.substr(second + 1);
  if (normalize(host) != normalize(v.aorta_path) || normalize(target) != normalize(v.container_mount_path))
    return false;
  std::stringstream in(opts);
  std::string opt;
  while (std::getline(in, opt, ','))
    if (opt == "ro") return false;
  return true;
}

void check_int_range(const KeyValues& env, const std::string& key, long long lo, long long hi,
                     const std::string& message, ConfigErrors& errors) {
  for (const auto& [name, value] : env) {
    if (name != key) continue;
    auto parsed = as_integer(json(value));
    if (!parsed || *parsed < lo || *parsed > hi) errors.add("container.env/multi_node.extra_env." + key, message);
  }
}

// [A-Za-z0-9_.-]+ and [A-Za-z_][A-Za-z0-9_]*, checked by hand: std::regex_match
// recurses once per character and a long key overflowed the stack.
bool is_override_key(const std::string& key) {
  return !key.empty() && std::all_of(key.begin(), key.end(), [](unsigned char c) {
    return std::isalnum(c) || c == '_' || c == '.' || c == '-';
  });
}

bool is_env_name(const std::string& key) {
  auto word = [](unsigned char c) { return std::isalnum(c) || c == '_'; };
  return !key.empty() && !std::isdigit(static_cast<unsigned char>(key[0])) && std::all_of(key.begin(), key.end(), word);
}

// The folders on the nodes are absolute; the scripts, relative to the repository.
void check_paths(const Variant& v, ConfigErrors& errors) {
  check_absolute_dir("aorta_path", v.aorta_path, errors);
  if (v.container.runtime == RuntimeKind::kDocker)
    check_absolute_dir("container_mount_path", v.container_mount_path, errors);
  check_absolute_dir("rccl.build_path", v.rccl.build_path, errors);

  check_relative_script("base_config", v.base_config, errors);
  check_relative_script("build_script", v.build_script, errors);
  check_relative_script("experiment_script", v.experiment_script, errors);
  check_relative_script("multi_node.train_script", v.multi_node.train_script, errors);
  check_relative_script("analysis.tracelens_script", v.analysis.tracelens_script, errors);
  check_relative_script("analysis.gemm_script", v.analysis.gemm_script, errors);
}

// container.runtime.args' keys, and a docker container's mount, name and image.
void check_container(const Variant& v, const json& raw_args, ConfigErrors& errors) {
  static const std::set<std::string> kArgs = {"volumes", "devices", "env", "cap_add", "security_opt",
                                              "group_add", "network", "user", "ipc", "shm_size",
                                              "ulimit", "privileged", "registry"};
  std::vector<std::string> unknown;
  if (raw_args.is_object())
    for (const auto& [name, value] : raw_args.items())
      if (!kArgs.count(name)) unknown.push_back(name);
  std::sort(unknown.begin(), unknown.end());
  if (!unknown.empty())
    errors.add("container.runtime.args", "Unknown container.runtime.args key(s): " + python_list(unknown));

  // Without a container the repository is used in place, so there is no mount to check.
  if (v.container.runtime == RuntimeKind::kDocker) {
    bool writable = std::any_of(v.container.args.volumes.begin(), v.container.args.volumes.end(),
                                [&](const std::string& vol) { return is_writable_repo_mount(vol, v); });
    if (!writable)
      errors.add("container.runtime.args.volumes", "container.runtime.args.volumes must include the writable mount '" +
                                                       v.aorta_path + ":" + v.container_mount_path + "'");
    if (v.container.name.empty()) errors.add("container.name", "must be set for the docker runtime");
    if (v.container.image.empty()) errors.add("container.image", "must be set for the docker runtime");
  }
}

// What the training is handed: its override keys, and the environment of the
// container and of multi_node (the RCCL and OpenMP variables in their ranges).
void check_training_environment(const Variant& v, ConfigErrors& errors) {
  for (const auto& [key, value] : v.training_overrides)
    if (!is_override_key(key))
      errors.add("training_overrides." + key, "Invalid training override key: '" + key + "'");

  KeyValues merged = v.container.env;
  merged.insert(merged.end(), v.multi_node.extra_env.begin(), v.multi_node.extra_env.end());
  for (const auto& [key, value] : merged)
    if (!is_env_name(key)) errors.add("container.env/multi_node.extra_env." + key, "Invalid environment entry: '" + key + "'");
  check_int_range(merged, "NCCL_MAX_NCHANNELS", 1, 256, "NCCL_MAX_NCHANNELS must be in 1..256", errors);
  check_int_range(merged, "NCCL_MAX_P2P_NCHANNELS", 1, 256, "NCCL_MAX_P2P_NCHANNELS must be in 1..256", errors);
  check_int_range(merged, "TORCH_NCCL_HIGH_PRIORITY", 0, 1, "TORCH_NCCL_HIGH_PRIORITY must be 0 or 1", errors);
  check_int_range(merged, "RCCL_MSCCL_ENABLE", 0, 1, "RCCL_MSCCL_ENABLE must be 0 or 1", errors);
  check_int_range(merged, "OMP_NUM_THREADS", 1, 1LL << 31, "OMP_NUM_THREADS must be >= 1", errors);
}

}  // namespace

void validate_variant(const Variant& v, const json& raw_args, ConfigErrors& errors) {
  check_paths(v, errors);
  check_container(v, raw_args, errors);

  if (v.aorta_auto_clone && v.aorta_clone_url.empty())
    errors.add("aorta_clone_url", "aorta_clone_url is required when aorta_auto_clone is true");

  const auto& mn = v.multi_node;
  if (mn.master_port != 0 && (mn.master_port < 1024 || mn.master_port > 65535))
    errors.add("multi_node.master_port", "multi_node.master_port must be 0 (automatic) or 1024..65535");
  if (mn.master_launch_mode != "auto" && mn.master_launch_mode != "script" && mn.master_launch_mode != "torchrun")
    errors.add("multi_node.master_launch_mode", "must be one of auto, script, torchrun; got '" + mn.master_launch_mode + "'");
  if (mn.nproc_per_node < 0) errors.add("multi_node.nproc_per_node", "must be >= 0 (0 = gpus_per_node)");

  check_training_environment(v, errors);

  if (v.gpus_per_node <= 0) errors.add("gpus_per_node", "must be an integer > 0");
  if (v.timeout_seconds <= 0) errors.add("timeout_seconds", "must be an integer > 0");
  if (v.keep_node_runs < 0) errors.add("keep_node_runs", "must be an integer >= 0 (0: keep no run's folder on the nodes)");
  // Traces not archived stay only in the run's folder on their nodes: keeping no
  // run's folder there would delete the one copy the reports name (host:path).
  else if (v.keep_node_runs == 0 && v.analysis.archive_traces != "all")
    errors.add("keep_node_runs", "0 removes each run's folder on the nodes, but analysis.archive_traces '" +
                                     v.analysis.archive_traces + "' leaves traces there as their only copy; keep at "
                                     "least 1 run on the nodes, or archive all traces");
  if (v.model_remote == 1)
    errors.add("model.remote",
               "model.remote=1 (remote model download) is not implemented in the PoC. Port from "
               "cvs-dtni-v1/resource_resolver.py before enabling.");
  else if (v.model_remote != 0)
    errors.add("model.remote", "must be 0 or 1");
  const auto& lt = v.container.lifetime;
  if (lt != "per_run" && lt != "persistent" && lt != "no_launch")
    errors.add("container.lifetime", "must be one of per_run, persistent, no_launch; got '" + lt + "'");
  if (v.schema_version != 1) errors.add("schema_version", "must be 1");
}

void read_thresholds(const json& doc, bool enforce, std::vector<Threshold>& out, ConfigErrors& errors) {
  out.clear();
  if (!doc.is_object()) {
    errors.add("", "Aorta threshold files must contain an expected_results block");
    return;
  }
  for (const auto& [name, value] : doc.items())
    if (name != "expected_results") {
      errors.add(name, "Aorta threshold files must contain an expected_results block");
      return;
    }
  if (doc.contains("expected_results")) {
    const json& block = doc.at("expected_results");
    if (!block.is_object()) {
      errors.add("expected_results", "must be an object of threshold keys");
      return;
    }
    for (const auto& [key, value] : block.items()) {
      std::string dotted = "expected_results." + key;
      const metrics::ThresholdSpec* spec = metrics::find_threshold(key);
      if (!spec) {
        errors.add(dotted, "Unknown Aorta threshold: " + key);
        continue;
      }
      if (value.is_null()) {
        out.push_back({key, std::nullopt});
        continue;
      }
      if (!value.is_number() || !std::isfinite(value.get<double>()) || value.get<double>() < 0) {
        errors.add(dotted, key + " must be a finite non-negative number");
        continue;
      }
      double limit = value.get<double>();
      if (limit < spec->min_limit || limit > spec->max_limit) {
        errors.add(dotted, fmt::format("{} must be in {:g}..{:g}", key, spec->min_limit, spec->max_limit));
        continue;
      }
      out.push_back({key, limit});
    }
  }
  bool any = std::any_of(out.begin(), out.end(), [](const Threshold& t) { return t.value.has_value(); });
  if (enforce && !any)
    errors.add("expected_results", "enforce_thresholds=true requires at least one expected_results threshold");
}

}  // namespace aorta::config
