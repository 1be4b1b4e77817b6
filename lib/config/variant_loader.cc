#include "config/variant_loader.h"

#include <algorithm>

#include "config/json_fields.h"
#include "config/json_file.h"
#include "config/kernel_log_section.h"
#include "config/secret_values.h"
#include "config/shell_meaning.h"
#include "config/variant_rules.h"
#include "metrics/threshold_catalogue.h"

namespace aorta::config {
namespace fs = std::filesystem;
namespace {

std::optional<json> read_json_file(const fs::path& file, const std::string& what, ConfigErrors& errors) {
  auto doc = read_config_json(file, what, errors);
  if (!doc) return std::nullopt;
  // Top-level keys starting with '_' are comments (e.g. _comment).
  for (auto it = doc->begin(); it != doc->end();) {
    if (!it.key().empty() && it.key()[0] == '_') it = doc->erase(it); else ++it;
  }
  return doc;
}

void require(const json& obj, const char* key, const std::string& prefix, ConfigErrors& errors) {
  if (!obj.is_object() || !obj.contains(key)) errors.add(join_key(prefix, key), "Field required");
}

const json& block(const json& doc, const char* key, const std::string& prefix, ConfigErrors& errors) {
  static const json kEmpty = json::object();
  if (!doc.contains(key)) return kEmpty;
  const json& b = doc.at(key);
  if (!b.is_object()) {
    errors.add(join_key(prefix, key), "must be an object, got " + shown(b));
    return kEmpty;
  }
  return b;
}

// CVS's registry object: username and password_file required, server optional. CVS
// skips a null or empty one, and so do we. The password itself never goes in a config.
void read_registry(const json& args, const std::string& prefix, Registry& r, ConfigErrors& errors) {
  if (!args.contains("registry") || args.at("registry").is_null() || args.at("registry") == json::object()) return;
  const std::string p = join_key(prefix, "registry");
  const json& rj = args.at("registry");
  if (!rj.is_object()) {
    errors.add(p, "must be an object with username, password_file and optionally server (as in CVS), got " + shown(rj));
    return;
  }
  if (rj.contains("password"))
    errors.add(join_key(p, "password"), "a password is never put in the config: write it to a file on each node and "
                                        "name that file in password_file");
  else
    reject_unknown_keys(rj, p, {"username", "password_file", "server"}, errors);
  for (const char* key : {"username", "password_file"}) {
    require(rj, key, p, errors);
    std::string value;
    read_string(rj, key, p, value, errors);
    if (rj.contains(key) && rj.at(key).is_string() && value.empty()) errors.add(join_key(p, key), "must not be empty");
    (std::string(key) == "username" ? r.username : r.password_file) = value;
  }
  read_string(rj, "server", p, r.server, errors);
  if (!r.server.empty() && (r.server[0] == '-' || r.server.find_first_of(" \t\n\r\v\f") != std::string::npos))
    errors.add(join_key(p, "server"), "must be a registry host (and port), got " + shown(json(r.server)));
}

void read_container(const json& doc, Container& c, json& raw_args, ConfigErrors& errors) {
  require(doc, "container", "", errors);
  const json& cj = block(doc, "container", "", errors);
  reject_unknown_keys(cj, "container", {"lifetime", "name", "image", "runtime", "env"}, errors);
  read_string(cj, "lifetime", "container", c.lifetime, errors);
  read_string(cj, "name", "container", c.name, errors);
  read_string(cj, "image", "container", c.image, errors);
  read_key_values(cj, "env", "container", c.env, errors);
  if (!cj.empty()) require(cj, "runtime", "container", errors);
  const json& rj = block(cj, "runtime", "container", errors);
  reject_unknown_keys(rj, "container.runtime", {"name", "args"}, errors);
  if (!rj.empty()) require(rj, "name", "container.runtime", errors);
  read_string(rj, "name", "container.runtime", c.runtime_name, errors);
  if (c.runtime_name == "docker") {
    c.runtime = RuntimeKind::kDocker;
  } else if (c.runtime_name == "none") {
    c.runtime = RuntimeKind::kNone;
  } else if (c.runtime_name == "enroot") {
    errors.add("container.runtime.name", "the enroot runtime is not implemented; use docker or none");
  } else {
    errors.add("container.runtime.name", "must be docker or none, got '" + c.runtime_name + "'");
  }
  raw_args = block(rj, "args", "container.runtime", errors);
  const std::string p = "container.runtime.args";
  auto& a = c.args;
  read_string_list(raw_args, "volumes", p, a.volumes, errors);
  read_string_list(raw_args, "devices", p, a.devices, errors);
  read_key_values(raw_args, "env", p, a.env, errors);
  read_string_list(raw_args, "cap_add", p, a.cap_add, errors);
  read_string_list(raw_args, "security_opt", p, a.security_opt, errors);
  read_string_list(raw_args, "group_add", p, a.group_add, errors);
  read_string(raw_args, "network", p, a.network, errors);
  read_string(raw_args, "user", p, a.user, errors);
  read_string(raw_args, "ipc", p, a.ipc, errors);
  read_string(raw_args, "shm_size", p, a.shm_size, errors);
  read_string_list(raw_args, "ulimit", p, a.ulimit, errors);
  read_bool(raw_args, "privileged", p, a.privileged, errors);
  read_registry(raw_args, p, a.registry, errors);
}

// Each element is one argument, quoted; CVS spliced them raw into a bash line. One
// holding whitespace was meant as several, and one that bash would read differently
// ($VAR, a glob, a quote...) means something else here than under CVS: the user learns
// both before any node runs.
void refuse_shell_words(const std::vector<std::string>& args, const std::string& key, ConfigErrors& errors) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string where = key + "[" + std::to_string(i) + "]";
    if (args[i].find_first_of(" \t\n\r\v\f") != std::string::npos) {
      errors.add(where, "element " + shown(json(args[i])) +
                            " holds whitespace, but each element is passed as one argument; split it into separate "
                            "elements");
    } else if (auto meaning = shell_meaning(args[i])) {
      std::string holds = meaning->character ? "holds " + shown(json(std::string(1, meaning->character))) + " (character " +
                                                   std::to_string(meaning->position + 1) + "), which "
                                             : "";
      errors.add(where, "element " + shown(json(args[i])) + " " + holds + meaning->does +
                            " in CVS's shell line, but aorta_suite passes each element as it stands; put the "
                            "literal value you mean in the config");
    }
  }
}

// Where the traces are analyzed and which of them come home (node-side analysis).
void read_analysis_placement(const json& an, Analysis& a, ConfigErrors& errors) {
  read_string(an, "where", "analysis", a.where, errors);
  if (a.where != "head" && a.where != "nodes")
    errors.add("analysis.where", "must be head or nodes, got '" + a.where + "'");
  read_string(an, "node_binary", "analysis", a.node_binary, errors);
  read_string(an, "archive_traces", "analysis", a.archive_traces, errors);
  if (a.archive_traces != "all" && a.archive_traces != "outliers" && a.archive_traces != "none")
    errors.add("analysis.archive_traces", "must be all, outliers or none, got '" + a.archive_traces + "'");
  else if (a.archive_traces != "all" && a.where != "nodes")
    errors.add("analysis.archive_traces", "'" + a.archive_traces + "' needs analysis.where \"nodes\": head-side "
               "analysis reads every trace's copy");
}

// The sampler's block: its interval is a number of seconds, from 1 to an hour.
void read_telemetry(const json& doc, Telemetry& t, ConfigErrors& errors) {
  const json& tj = block(doc, "telemetry", "", errors);
  reject_unknown_keys(tj, "telemetry", {"enabled", "interval_seconds"}, errors);
  read_bool(tj, "enabled", "telemetry", t.enabled, errors);
  read_int(tj, "interval_seconds", "telemetry", t.interval_seconds, errors);
  if (t.interval_seconds < 1 || t.interval_seconds > 3600)
    errors.add("telemetry.interval_seconds", "must be an integer from 1 to 3600 (seconds between GPU samples), got " +
                                                 std::to_string(t.interval_seconds));
}

void read_multi_node(const json& doc, MultiNode& m, ConfigErrors& errors) {
  const std::string p = "multi_node";
  const json& mj = block(doc, "multi_node", "", errors);
  reject_unknown_keys(mj, p,
                      {"master_launch_mode", "nproc_per_node", "master_port", "master_addr", "train_script",
                       "extra_torchrun_args", "extra_train_args", "extra_env", "collect_traces"},
                      errors);
  read_string(mj, "master_launch_mode", p, m.master_launch_mode, errors);
  read_int(mj, "nproc_per_node", p, m.nproc_per_node, errors);
  read_int(mj, "master_port", p, m.master_port, errors);
  read_string(mj, "master_addr", p, m.master_addr, errors);
  read_string(mj, "train_script", p, m.train_script, errors);
  for (const char* key : {"extra_torchrun_args", "extra_train_args"}) {
    if (mj.contains(key) && mj.at(key).is_array() &&
        !std::all_of(mj.at(key).begin(), mj.at(key).end(), [](const json& x) { return x.is_string(); })) {
      errors.add(join_key(p, key), "Extra launch arguments must be strings");
      continue;
    }
    auto& args = std::string(key) == "extra_torchrun_args" ? m.extra_torchrun_args : m.extra_train_args;
    read_string_list(mj, key, p, args, errors);
    refuse_shell_words(args, join_key(p, key), errors);
  }
  read_key_values(mj, "extra_env", p, m.extra_env, errors);
  read_bool(mj, "collect_traces", p, m.collect_traces, errors);
}

void read_variant_fields(const json& doc, Variant& v, json& raw_args, ConfigErrors& errors) {
  reject_unknown_keys(doc, "",
                      {"schema_version", "threshold_json", "enforce_thresholds", "paths", "model", "container",
                       "aorta_path", "trust_aorta_path", "container_mount_path", "aorta_auto_clone", "aorta_clone_url", "base_config",
                       "build_script", "experiment_script", "rccl", "training_overrides", "gpus_per_node",
                       "timeout_seconds", "skip_rccl_build", "output_dir", "trace_compression", "keep_node_runs", "junit_shape", "analysis",
                       "multi_node", "kernel_log", "telemetry"},
                      errors);
  for (const char* key : {"schema_version", "paths", "model", "aorta_path", "gpus_per_node"}) require(doc, key, "", errors);
  read_int(doc, "schema_version", "", v.schema_version, errors);
  read_bool(doc, "enforce_thresholds", "", v.enforce_thresholds, errors);

  const json& paths = block(doc, "paths", "", errors);
  if (doc.contains("paths"))
    for (const char* key : {"shared_fs", "models_dir", "log_dir", "hf_token_file"}) require(paths, key, "paths", errors);
  read_key_values(doc, "paths", "", v.paths, errors);

  const json& model = block(doc, "model", "", errors);
  reject_unknown_keys(model, "model", {"id", "remote", "precision"}, errors);
  if (doc.contains("model")) {
    require(model, "id", "model", errors);
    require(model, "remote", "model", errors);
  }
  read_string(model, "id", "model", v.model_id, errors);
  read_int(model, "remote", "model", v.model_remote, errors);
  read_string(model, "precision", "model", v.model_precision, errors);

  read_container(doc, v.container, raw_args, errors);
  read_string(doc, "aorta_path", "", v.aorta_path, errors);
  read_bool(doc, "trust_aorta_path", "", v.trust_aorta_path, errors);
  read_string(doc, "container_mount_path", "", v.container_mount_path, errors);
  read_bool(doc, "aorta_auto_clone", "", v.aorta_auto_clone, errors);
  read_string(doc, "aorta_clone_url", "", v.aorta_clone_url, errors);
  read_string(doc, "base_config", "", v.base_config, errors);
  read_string(doc, "build_script", "", v.build_script, errors);
  read_string(doc, "experiment_script", "", v.experiment_script, errors);

  const json& rccl = block(doc, "rccl", "", errors);
  reject_unknown_keys(rccl, "rccl", {"clone_url", "branch", "build_path"}, errors);
  read_string(rccl, "clone_url", "rccl", v.rccl.clone_url, errors);
  read_string(rccl, "branch", "rccl", v.rccl.branch, errors);
  read_string(rccl, "build_path", "rccl", v.rccl.build_path, errors);

  read_key_values(doc, "training_overrides", "", v.training_overrides, errors);
  read_int(doc, "gpus_per_node", "", v.gpus_per_node, errors);
  read_int(doc, "timeout_seconds", "", v.timeout_seconds, errors);
  read_bool(doc, "skip_rccl_build", "", v.skip_rccl_build, errors);
  read_string(doc, "output_dir", "", v.output_dir, errors);
  read_string(doc, "trace_compression", "", v.trace_compression, errors);
  if (v.trace_compression != "auto" && v.trace_compression != "zstd" && v.trace_compression != "gzip" &&
      v.trace_compression != "none")
    errors.add("trace_compression", "must be auto, zstd, gzip or none, got '" + v.trace_compression + "'");
  read_int(doc, "keep_node_runs", "", v.keep_node_runs, errors);
  read_string(doc, "junit_shape", "", v.junit_shape, errors);
  if (!v.junit_shape.empty() && v.junit_shape != "gtest" && v.junit_shape != "cvs")
    errors.add("junit_shape", "must be gtest or cvs, got '" + v.junit_shape + "'");

  const json& an = block(doc, "analysis", "", errors);
  reject_unknown_keys(an, "analysis",
                      {"enable_tracelens", "enable_gemm_analysis", "tracelens_script", "gemm_script", "skip_if_exists",
                       "where", "node_binary", "archive_traces"},
                      errors);
  read_bool(an, "enable_tracelens", "analysis", v.analysis.enable_tracelens, errors);
  read_bool(an, "enable_gemm_analysis", "analysis", v.analysis.enable_gemm_analysis, errors);
  read_string(an, "tracelens_script", "analysis", v.analysis.tracelens_script, errors);
  read_string(an, "gemm_script", "analysis", v.analysis.gemm_script, errors);
  read_bool(an, "skip_if_exists", "analysis", v.analysis.skip_if_exists, errors);
  read_analysis_placement(an, v.analysis, errors);

  read_multi_node(doc, v.multi_node, errors);
  read_kernel_log(doc, v.kernel_log, errors);
  read_telemetry(doc, v.telemetry, errors);
}

}  // namespace

const std::vector<std::string>& threshold_keys() {
  static const std::vector<std::string> kKeys = [] {
    std::vector<std::string> keys;
    for (const auto& spec : metrics::threshold_catalogue()) keys.push_back(spec.key);
    return keys;
  }();
  return kKeys;
}

std::optional<fs::path> find_threshold_file(const fs::path& variant_file, const std::string& threshold_json,
                                            ConfigErrors& errors) {
  fs::path dir = variant_file.parent_path().empty() ? fs::path(".") : variant_file.parent_path();
  if (!threshold_json.empty()) {
    // A path the OS cannot take (NUL byte, too long) is just "not found"; the
    // throwing overloads of std::filesystem would abort the load instead.
    fs::path p = fs::path(threshold_json).is_absolute() ? fs::path(threshold_json) : dir / threshold_json;
    std::error_code ec;
    if (threshold_json.find('\0') != std::string::npos || !fs::is_regular_file(p, ec)) {
      errors.add("threshold_json", "threshold_json not found: " + p.string());
      return std::nullopt;
    }
    return p;
  }
  std::vector<std::string> found;
  std::error_code ec;
  // The error_code forms throughout: a folder that cannot be listed means no
  // threshold file, not an exception.
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code entry_ec;
    if (it->is_regular_file(entry_ec) && name.size() >= 14 && name.compare(name.size() - 14, 14, "threshold.json") == 0)
      found.push_back(it->path().string());
  }
  std::sort(found.begin(), found.end());
  if (found.empty()) {
    errors.add("threshold_json", "no *threshold.json next to config: " + dir.string());
    return std::nullopt;
  }
  if (found.size() > 1) {
    std::string list = "[";
    for (size_t i = 0; i < found.size(); ++i) list += (i ? ", '" : "'") + found[i] + "'";
    errors.add("threshold_json", "multiple *threshold.json files next to config (ambiguous): " + list + "]");
    return std::nullopt;
  }
  return fs::path(found.front());
}

VariantLoad load_variant(const fs::path& file, const PlaceholderValues& values) {
  VariantLoad result;
  ConfigErrors errors(file.string());
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    errors.add("", "variant config not found: " + file.string());
    result.errors = errors.list();
    return result;
  }
  auto doc = read_json_file(file, "variant config", errors);
  if (!doc) {
    result.errors = errors.list();
    return result;
  }
  resolve_placeholders(*doc, values, errors);
  check_unresolved(*doc, "", errors);
  result.secrets = secret_values(*doc);

  Variant v;
  v.file = file;
  json raw_args = json::object();
  read_variant_fields(*doc, v, raw_args, errors);

  std::string threshold_json;
  read_string(*doc, "threshold_json", "", threshold_json, errors);
  ConfigErrors threshold_errors("");
  if (auto tfile = find_threshold_file(file, threshold_json, errors)) {
    v.threshold_file = *tfile;
    threshold_errors.set_file(tfile->string());
    if (auto tdoc = read_json_file(*tfile, "threshold file", threshold_errors)) {
      resolve_placeholders(*tdoc, values, threshold_errors);
      check_unresolved(*tdoc, "", threshold_errors);
      read_thresholds(*tdoc, v.enforce_thresholds, v.thresholds, threshold_errors);
    }
  }
  validate_variant(v, raw_args, errors);
  errors.append(threshold_errors.list());
  result.errors = errors.list();
  if (result.errors.empty()) result.variant = std::move(v);
  return result;
}

}  // namespace aorta::config
