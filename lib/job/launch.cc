#include "job/launch.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <sstream>

#include "common/shell_quote.h"

namespace aorta::job {
namespace {

void set_default(config::KeyValues& env, const std::string& key, const std::string& value) {
  for (const auto& [k, v] : env)
    if (k == key) return;
  env.emplace_back(key, value);
}

void set_value(config::KeyValues& env, const std::string& key, const std::string& value) {
  for (auto& [k, v] : env)
    if (k == key) {
      v = value;
      return;
    }
  env.emplace_back(key, value);
}

std::string repo_file(const config::Variant& v, const std::string& relative) {
  return v.node_repo_path() + "/" + relative;
}

// NCCL_MAX_NCHANNELS as a number; nothing when the env says something else (a
// config value must never throw out of a stage).
std::optional<int> channels_of(const config::KeyValues& env) {
  for (const auto& [k, val] : env) {
    if (k != "NCCL_MAX_NCHANNELS") continue;
    int n = 0;
    auto [end, ec] = std::from_chars(val.data(), val.data() + val.size(), n);
    if (ec != std::errc() || end != val.data() + val.size()) return std::nullopt;
    return n;
  }
  return 112;
}

}  // namespace

LaunchMode launch_mode(const config::Variant& v, size_t nodes) {
  const std::string& mode = v.multi_node.master_launch_mode;
  if (mode == "script") return LaunchMode::kScript;
  if (mode == "torchrun") return LaunchMode::kTorchrun;
  return nodes <= 1 ? LaunchMode::kScript : LaunchMode::kTorchrun;
}

config::KeyValues effective_env(const config::Variant& v) {
  config::KeyValues env = v.container.env;
  // RCCL/NCCL tuning the original applies unless the config says otherwise: 112
  // channels leave CUs for compute on MI3xx; high-priority NCCL streams; one OpenMP
  // thread per rank; MSCCL off so collectives use the RCCL kernels being measured.
  set_default(env, "NCCL_MAX_NCHANNELS", "112");
  set_default(env, "NCCL_MAX_P2P_NCHANNELS", "112");
  set_default(env, "NCCL_DEBUG", "VERSION");
  set_default(env, "TORCH_NCCL_HIGH_PRIORITY", "1");
  set_default(env, "OMP_NUM_THREADS", "1");
  set_default(env, "RCCL_MSCCL_ENABLE", "0");
  set_value(env, "rccl_path", v.rccl.build_path);
  set_value(env, "RCCL_CLONE_URL", v.rccl.clone_url);
  set_value(env, "RCCL_BRANCH", v.rccl.branch);
  if (!v.training_overrides.empty()) {
    std::string args = "--override";
    for (const auto& [k, val] : v.training_overrides) args += " " + k + "=" + val;
    set_value(env, "AORTA_OVERRIDE_ARGS", args);
  }
  for (const auto& [k, val] : v.multi_node.extra_env) set_value(env, k, val);
  // Tensile stream-K may use the CUs that the NCCL channels leave free.
  // Not a number: RCCL ignores it, and no CU count can be derived from it.
  if (auto channels = channels_of(env))
    set_default(env, "TENSILE_STREAMK_MAX_CUS", std::to_string(256 - *channels));
  return env;
}

int nccl_channels(const config::Variant& v) {
  // RCCL falls back to its default when the value is not a number.
  return channels_of(effective_env(v)).value_or(112);
}

bool sets_output_dir(const config::Variant& v) {
  for (const auto& [k, val] : v.training_overrides)
    if (k == kOutputDirKey) return true;
  return false;
}

std::string script_mode_command(const config::Variant& v) {
  std::vector<std::string> argv = {"bash", repo_file(v, v.experiment_script), repo_file(v, v.base_config)};
  if (!v.training_overrides.empty()) {
    argv.push_back("--override");
    for (const auto& [k, val] : v.training_overrides) argv.push_back(k + "=" + val);
  }
  return shell_join(argv);
}

std::string torchrun_command(const config::Variant& v, const Rendezvous& rdzv, size_t nodes, size_t node_rank) {
  int nproc = v.ranks_per_node();
  std::vector<std::string> parts = {"torchrun",
                                    "--nnodes=" + std::to_string(nodes),
                                    "--node_rank=" + std::to_string(node_rank),
                                    "--nproc_per_node=" + std::to_string(nproc),
                                    "--master_addr=" + shell_quote(rdzv.master_addr),
                                    "--master_port=" + std::to_string(rdzv.master_port)};
  // Each element is one argument: a value, never shell code (issue 14).
  for (const auto& arg : v.multi_node.extra_torchrun_args) parts.push_back(shell_quote(arg));
  parts.push_back(shell_quote(repo_file(v, v.multi_node.train_script)));
  parts.push_back("--config");
  parts.push_back(shell_quote(repo_file(v, v.base_config)));
  if (!v.training_overrides.empty()) {
    parts.push_back("--override");
    for (const auto& [k, val] : v.training_overrides) parts.push_back(shell_quote(k + "=" + val));
  }
  for (const auto& arg : v.multi_node.extra_train_args) parts.push_back(shell_quote(arg));
  std::string inner;
  for (const auto& p : parts) inner += (inner.empty() ? "" : " ") + p;
  return "bash -lc " + shell_quote(inner);
}

std::string phase_script(const config::Variant& v, size_t node_rank, const Rendezvous& rdzv, const std::string& command,
                         const std::string& exit_file) {
  std::ostringstream s;
  s << "#!/usr/bin/env bash\n";
  // Not exported: the training cannot learn where the status goes from its environment.
  s << "cvs_aorta_exit_file=" << shell_quote(exit_file) << "\n";
  // The marker goes to the log before the exit file is written: a poll that finds the
  // exit file then reads a log that already ends with it. set +e: a log that cannot be
  // written (disk full) must not end the trap before the exit file.
  s << "trap 'status=$?; set +e; printf \"\\n" << kExitMarker << "%s\\n\" \"$status\"; printf \"%s\\n\" \"$status\" > "
       "\"$cvs_aorta_exit_file.tmp\" && mv -f \"$cvs_aorta_exit_file.tmp\" \"$cvs_aorta_exit_file\"' EXIT\n";
  s << "set -e\n";
  s << "cd " << shell_quote(v.node_repo_path()) << "\n";
  config::KeyValues env = effective_env(v);
  bool has_ld_path = false;
  for (const auto& [k, val] : env) {
    s << "export " << k << "=" << shell_quote(val) << "\n";
    has_ld_path |= k == "LD_LIBRARY_PATH";
  }
  if (!has_ld_path)
    s << "export LD_LIBRARY_PATH=" << shell_quote(v.rccl.build_path + "/build/release/")
      << ":/opt/rocm/lib:/opt/rocm/lib64:/opt/openmpi/lib:/opt/rccl-tests/build:\"${LD_LIBRARY_PATH:-}\"\n";
  s << "export NODE_RANK=" << node_rank << "\n";
  s << "export MASTER_ADDR=" << shell_quote(rdzv.master_addr) << "\n";
  s << "export MASTER_PORT=" << rdzv.master_port << "\n";
  s << command << "\n";
  return s.str();
}

int exit_code_from_status(const std::string& text) {
  size_t start = text.find_first_not_of(" \t\r\n");
  if (start == std::string::npos) return -1;
  size_t end = text.find_last_not_of(" \t\r\n") + 1;
  const std::string digits = text.substr(start, end - start);
  if (digits.empty() || digits.size() > 8 || digits.find_first_not_of("0123456789") != std::string::npos) return -1;
  return std::stoi(digits);
}

}  // namespace aorta::job
