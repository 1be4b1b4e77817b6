#include "config/cvs_yaml_import.h"

#include <cmath>

#include "config/yaml_document.h"

namespace aorta::config {
namespace {

// CVS's defaults for what a file leaves out (cvs/parsers/schemas.py,
// AortaBenchmarkConfigFile and its sections), so the import gives CVS's run, not ours.
const char* const kImage = "jeffdaily/pytorch:torchrec-dlrm-complete";
const char* const kRcclUrl = "https://github.com/ROCmSoftwarePlatform/rccl.git";
const char* const kTracelensScript = "scripts/tracelens_single_config/run_tracelens_single_config.sh";
const char* const kGemmScript = "scripts/gemm_analysis/run_tracelens_analysis.sh";

struct EnvSpec {
  const char* name;
  long long fallback;
  long long lo;
  long long hi;
};
// test_aorta sets exactly these six (AortaEnvironment.to_dict), in this order; NCCL_DEBUG is text.
constexpr EnvSpec kEnv[] = {{"NCCL_MAX_NCHANNELS", 112, 1, 256},  {"NCCL_MAX_P2P_NCHANNELS", 112, 1, 256},
                            {"NCCL_DEBUG", 0, 0, 0},              {"TORCH_NCCL_HIGH_PRIORITY", 1, 0, 1},
                            {"OMP_NUM_THREADS", 1, 1, 1LL << 31}, {"RCCL_MSCCL_ENABLE", 0, 0, 1}};
// The gates test_validate_thresholds reads, and their upper bounds in CVS's schema (0: none).
constexpr std::pair<const char*, double> kGates[] = {{"max_avg_iteration_ms", 0}, {"min_compute_ratio", 1},
                                                     {"min_overlap_ratio", 1}, {"max_time_variance_ratio", 0}};

struct Reader {
  ConfigErrors& errors;

  const json& block(const json& doc, const char* key) {
    static const json kEmpty = json::object();
    if (!doc.contains(key)) return kEmpty;
    if (!doc.at(key).is_object()) {
      errors.add(key, "must be a mapping of keys (as in CVS's aorta_benchmark.yaml), got " + shown(doc.at(key)));
      return kEmpty;
    }
    return doc.at(key);
  }

  // CVS filled these from the cluster file at run time; {user} is our {user-id}.
  std::string placeholders(std::string text, const std::string& key) {
    for (size_t at = text.find("{user}"); at != std::string::npos; at = text.find("{user}", at))
      text.replace(at, 6, "{user-id}");
    for (const char* token : {"{home}", "{home-mount-dir}", "{node-dir-name}", "{run_dir}"})
      if (text.find(token) != std::string::npos)
        errors.add(key, std::string("uses ") + token +
                            ", which CVS filled from the cluster file at run time and aorta_suite does not: write "
                            "the path itself ({user-id} is kept and filled from the cluster file's username)");
    return text;
  }

  std::string text(const json& obj, const char* key, const std::string& prefix, const std::string& fallback) {
    if (!obj.contains(key)) return fallback;
    const json& v = obj.at(key);
    if (!v.is_string()) {
      errors.add(join_key(prefix, key), "must be text, got " + shown(v) +
                                            " (PyYAML read it as a number, boolean or null: quote it)");
      return fallback;
    }
    return placeholders(v.get<std::string>(), join_key(prefix, key));
  }

  bool flag(const json& obj, const char* key, const std::string& prefix, bool fallback) {
    if (!obj.contains(key)) return fallback;
    auto b = as_bool(obj.at(key));
    if (!b) errors.add(join_key(prefix, key), "must be true or false, got " + shown(obj.at(key)));
    return b.value_or(fallback);
  }

  long long integer(const json& obj, const char* key, const std::string& prefix, long long fallback, long long lo,
                    long long hi) {
    if (!obj.contains(key)) return fallback;
    auto i = obj.at(key).is_boolean() ? std::nullopt : as_integer(obj.at(key));
    if (!i || *i < lo || *i > hi) {
      errors.add(join_key(prefix, key), "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) +
                                            " (as in CVS), got " + shown(obj.at(key)));
      return fallback;
    }
    return *i;
  }
};

json docker_runtime(const json& doc, const std::string& aorta_path, const std::string& mount, Reader& r) {
  const json& d = r.block(doc, "docker");
  reject_unknown_keys(d, "docker", {"image", "container_name", "shm_size", "network_mode", "privileged"}, r.errors);
  // The flags test_aorta's runner always gives the container (AortaRunner._launch_container).
  json args = {{"network", r.text(d, "network_mode", "docker", "host")},
               {"user", "root"},
               {"ipc", "host"},
               {"shm_size", r.text(d, "shm_size", "docker", "17G")},
               {"privileged", r.flag(d, "privileged", "docker", true)},
               {"devices", {"/dev/kfd", "/dev/dri"}},
               {"volumes", {aorta_path + ":" + mount}},
               {"cap_add", {"SYS_PTRACE"}},
               {"security_opt", {"seccomp=unconfined"}},
               {"group_add", {"video"}},
               {"ulimit", {"memlock=-1:-1", "stack=67108864:67108864"}}};
  return {{"lifetime", "per_run"},
          {"name", r.text(d, "container_name", "docker", "aorta-benchmark")},
          {"image", r.text(d, "image", "docker", kImage)},
          {"runtime", {{"name", "docker"}, {"args", std::move(args)}}}};
}

json environment(const json& doc, Reader& r, std::vector<std::string>& notes) {
  const json& e = r.block(doc, "environment");
  json env = json::object();
  for (const auto& spec : kEnv) {
    if (std::string(spec.name) == "NCCL_DEBUG")
      env[spec.name] = r.text(e, spec.name, "environment", "VERSION");
    else
      env[spec.name] = std::to_string(r.integer(e, spec.name, "environment", spec.fallback, spec.lo, spec.hi));
  }
  for (const auto& [name, value] : e.items())
    if (!env.contains(name))
      notes.push_back("environment." + name +
                      " not carried: test_aorta accepted it but never set it in the container; to set it, add it "
                      "to container.env");
  return env;
}

json overrides(const json& doc, Reader& r) {
  const json& o = r.block(doc, "training_overrides");
  json out = json::object();
  for (const auto& [key, value] : o.items()) {
    const std::string dotted = "training_overrides." + key;
    if (value.is_boolean())  // test_aorta passed Python's str(): True, False
      out[key] = value.get<bool>() ? "True" : "False";
    else if (value.is_string())
      out[key] = r.placeholders(value.get<std::string>(), dotted);
    else if (value.is_number())
      out[key] = value;
    else
      r.errors.add(dotted, "must be a single value (text, number or boolean), got " + shown(value));
  }
  return out;
}

json thresholds(const json& doc, Reader& r, std::vector<std::string>& notes, bool& any) {
  const json& e = r.block(doc, "expected_results");
  json gates = json::object();
  for (const auto& [key, upper] : kGates) {
    gates[key] = nullptr;  // test_validate_thresholds skipped a gate left out or null
    if (!e.contains(key) || e.at(key).is_null()) continue;
    const json& v = e.at(key);
    double d = v.is_number() ? v.get<double>() : -1;
    if (!v.is_number() || !std::isfinite(d) || d < 0 || (upper > 0 && d > upper)) {
      r.errors.add(std::string("expected_results.") + key,
                   "must be a number >= 0" + std::string(upper > 0 ? " and <= 1" : "") + " or null, got " + shown(v));
      continue;
    }
    gates[key] = v;
    any = true;
  }
  for (const auto& [name, value] : e.items())
    if (!gates.contains(name))
      notes.push_back("expected_results." + name +
                      " not carried: test_aorta accepted it but never checked it; aorta_suite's gates are listed in "
                      "the README (threshold file)");
  return {{"expected_results", std::move(gates)}};
}

json analysis(const json& doc, Reader& r) {
  const json& a = r.block(doc, "analysis");
  reject_unknown_keys(a, "analysis",
                      {"enable_tracelens", "enable_gemm_analysis", "tracelens_script", "gemm_script", "skip_if_exists"},
                      r.errors);
  return {{"enable_tracelens", r.flag(a, "enable_tracelens", "analysis", true)},
          {"enable_gemm_analysis", r.flag(a, "enable_gemm_analysis", "analysis", false)},
          {"tracelens_script", r.text(a, "tracelens_script", "analysis", kTracelensScript)},
          {"gemm_script", r.text(a, "gemm_script", "analysis", kGemmScript)},
          {"skip_if_exists", r.flag(a, "skip_if_exists", "analysis", false)}};
}

// The required paths block: this config names no shared folder, so the one above aorta_path.
json paths_for(const std::string& aorta_path) {
  auto slash = aorta_path.find_last_of('/');
  std::string parent = slash == std::string::npos || slash == 0 ? "/" : aorta_path.substr(0, slash);
  return {{"shared_fs", parent}, {"models_dir", "{shared_fs}/models"}, {"log_dir", "{shared_fs}/logs"},
          {"hf_token_file", ""}};
}

std::string stem_of(const std::string& path) {
  std::string name = path.substr(path.find_last_of('/') == std::string::npos ? 0 : path.find_last_of('/') + 1);
  return name.substr(0, name.find('.'));
}

}  // namespace

CvsYamlImport import_cvs_yaml(const json& yaml, const std::string& source, const std::string& threshold_name) {
  CvsYamlImport out;
  ConfigErrors errors(source);
  Reader r{errors};
  reject_unknown_keys(yaml, "",
                      {"aorta_path", "aorta_auto_clone", "aorta_clone_url", "container_mount_path", "base_config",
                       "docker", "rccl", "environment", "training_overrides", "build_script", "experiment_script",
                       "gpus_per_node", "timeout_seconds", "skip_rccl_build", "expected_results", "analysis"},
                      errors);
  if (!yaml.contains("aorta_path")) errors.add("aorta_path", "Field required (the Aorta checkout on every node)");
  const std::string aorta_path = r.text(yaml, "aorta_path", "", "");
  const std::string mount = r.text(yaml, "container_mount_path", "", "/mnt");
  const std::string base_config = r.text(yaml, "base_config", "", "config/distributed.yaml");
  json v = {{"_comment", "Imported by aorta_suite config import from CVS's test_aorta config " + source},
            {"schema_version", 1},
            {"threshold_json", threshold_name},
            {"paths", paths_for(aorta_path)},
            {"model", {{"id", stem_of(base_config)}, {"remote", 0}}}};
  v["container"] = docker_runtime(yaml, aorta_path, mount, r);
  v["container"]["env"] = environment(yaml, r, out.notes);
  v["aorta_path"] = aorta_path;
  v["container_mount_path"] = mount;
  v["aorta_auto_clone"] = r.flag(yaml, "aorta_auto_clone", "", false);
  if (yaml.contains("aorta_clone_url") && !yaml.at("aorta_clone_url").is_null())
    v["aorta_clone_url"] = r.text(yaml, "aorta_clone_url", "", "");
  v["base_config"] = base_config;
  v["build_script"] = r.text(yaml, "build_script", "", "scripts/build_rccl.sh");
  v["experiment_script"] = r.text(yaml, "experiment_script", "", "scripts/rccl_exp.sh");
  const json& rccl = r.block(yaml, "rccl");
  reject_unknown_keys(rccl, "rccl", {"clone_url", "branch", "build_path"}, errors);
  v["rccl"] = {{"clone_url", r.text(rccl, "clone_url", "rccl", kRcclUrl)},
               {"branch", r.text(rccl, "branch", "rccl", "develop")},
               {"build_path", r.text(rccl, "build_path", "rccl", "/mnt/rccl")}};
  v["training_overrides"] = overrides(yaml, r);
  v["gpus_per_node"] = r.integer(yaml, "gpus_per_node", "", 8, 1, 1 << 20);
  v["timeout_seconds"] = r.integer(yaml, "timeout_seconds", "", 10800, 60, 1 << 30);
  v["skip_rccl_build"] = r.flag(yaml, "skip_rccl_build", "", false);
  v["analysis"] = analysis(yaml, r);
  bool any_gate = false;
  out.thresholds = thresholds(yaml, r, out.notes, any_gate);
  // No gate: test_validate_thresholds passed with nothing to check; our loader asks
  // for enforce_thresholds false to say the same.
  v["enforce_thresholds"] = any_gate;
  v["multi_node"] = {{"master_launch_mode", "auto"}};
  out.errors = errors.list();
  if (out.errors.empty()) out.variant = std::move(v);
  return out;
}

CvsYamlImport import_cvs_yaml_file(const std::filesystem::path& file, const std::string& threshold_name) {
  ConfigErrors errors(file.string());
  auto doc = read_yaml_file(file, errors);
  if (!doc) {
    CvsYamlImport out;
    out.errors = errors.list();
    return out;
  }
  return import_cvs_yaml(*doc, file.string(), threshold_name);
}

}  // namespace aorta::config
