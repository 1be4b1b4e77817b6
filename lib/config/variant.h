// The Aorta variant config (reference §2.3) as immutable typed structs. Defaults live
// here and only here; each one says why it is what it is.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/kernel_log_rules.h"

namespace aorta::config {

using KeyValues = std::vector<std::pair<std::string, std::string>>;  // insertion order matters

// CVS's registry object (cvs/core/runtimes/docker.py registry_login): the engine logs
// in on every node that must pull the image. The password stays in a file on the node.
struct Registry {
  std::string username;
  std::string password_file;  // a path on each node, read there and given on stdin
  std::string server;         // empty: the engine's default registry (Docker Hub)
  bool configured() const { return !username.empty(); }
};

struct RuntimeArgs {
  std::vector<std::string> volumes;
  std::vector<std::string> devices;
  KeyValues env;
  std::vector<std::string> cap_add;
  std::vector<std::string> security_opt;
  std::vector<std::string> group_add;
  std::string network = "host";  // host networking: RCCL/NCCL need the fabric NICs
  std::string user;
  std::string ipc = "host";      // host IPC: shared memory between ranks on one node
  std::string shm_size;          // applied only with a private IPC namespace: engines refuse it with ipc host
  std::vector<std::string> ulimit;
  bool privileged = true;        // the original's default; GPU and RDMA devices need it
  Registry registry;
};

// docker: the original's runtime. none: run directly on the node (bare metal, or a
// machine with no container engine); the container path is then the host path.
enum class RuntimeKind { kDocker, kNone };

struct Container {
  std::string lifetime = "per_run";  // per_run | persistent | no_launch
  std::string name;
  std::string image;
  RuntimeKind runtime = RuntimeKind::kDocker;
  std::string runtime_name = "docker";
  RuntimeArgs args;
  KeyValues env;
};

struct Rccl {
  std::string clone_url = "https://github.com/ROCm/rccl";
  std::string branch = "develop";
  std::string build_path = "/mnt/rccl";
};

struct Analysis {
  bool enable_tracelens = true;
  bool enable_gemm_analysis = false;
  std::string tracelens_script = "scripts/tracelens_single_config/run_tracelens_single_config.sh";
  std::string gemm_script = "scripts/gemm_analysis/run_tracelens_analysis.sh";
  bool skip_if_exists = false;
  // Where the rank traces are analyzed: "head" (copied home, parsed there) or "nodes"
  // (each node runs `<node_binary> rank-results` on its own traces; the head merges).
  std::string where = "head";
  // The suite's binary as the nodes see it; empty: the head's own path (the local
  // transport, and clusters that share the head's files).
  std::string node_binary;
  // Which traces come home: "all" (compressed, as always), "outliers" (the diagnosis's
  // outlier ranks') or "none"; the last two need where "nodes".
  std::string archive_traces = "all";
};

// The GPU telemetry sampler run beside the training on every node (issue 47).
struct Telemetry {
  bool enabled = true;
  int interval_seconds = 1;  // between two ticks, 1 to 3600
};

struct MultiNode {
  std::string master_launch_mode = "auto";  // auto: script on one node, torchrun on more
  int nproc_per_node = 0;                   // 0: use gpus_per_node
  int master_port = 0;                      // 0: the head node picks a free port
  std::string master_addr;                  // empty: the head node's vpc_ip
  std::string train_script = "train.py";
  std::vector<std::string> extra_torchrun_args;  // each element one argument, quoted
  std::vector<std::string> extra_train_args;     // each element one argument, quoted
  KeyValues extra_env;
  bool collect_traces = true;
};

// One threshold in file order; a null value is kept so reports can show it as n/a.
struct Threshold {
  std::string key;
  std::optional<double> value;
};

struct Variant {
  std::filesystem::path file;
  std::filesystem::path threshold_file;
  int schema_version = 1;
  bool enforce_thresholds = true;
  KeyValues paths;
  std::string model_id;
  int model_remote = 0;
  std::string model_precision;
  Container container;
  std::string aorta_path;
  // false: aorta_path and the folders above it must be yours (or root's) and not
  // writable by others, since the suite runs the scripts it finds there.
  bool trust_aorta_path = false;
  std::string container_mount_path = "/mnt";
  bool aorta_auto_clone = false;
  std::string aorta_clone_url;
  std::string base_config = "config/distributed.yaml";
  std::string build_script = "scripts/build_rccl.sh";
  std::string experiment_script = "scripts/rccl_exp.sh";
  Rccl rccl;
  KeyValues training_overrides;
  int gpus_per_node = 0;
  int timeout_seconds = 3600;  // per build, benchmark, analysis and collection command
  bool skip_rccl_build = false;
  std::string output_dir = "aorta_results";
  // How traces travel home and stay there: "auto" (zstd -1 where the node has it,
  // else gzip -1, else as they are), "zstd", "gzip", or "none" (plain copies).
  std::string trace_compression = "auto";
  // How many runs' folders (<aorta_path>/.cvs-aorta/<run-id>) each node keeps, this
  // run's included; 0: this run's too, once its traces are home (job/run_retention.h).
  int keep_node_runs = 2;
  // The JUnit file's shape: "gtest", "cvs", or empty (gtest unless --junit-shape says).
  std::string junit_shape;
  Analysis analysis;
  MultiNode multi_node;
  Telemetry telemetry;
  std::vector<Threshold> thresholds;
  KernelLogRules kernel_log;  // the kernel-log check's own patterns, dropped categories and ignore rules

  // The path commands use on a node: the container mount, or the host path when
  // there is no container.
  const std::string& node_repo_path() const {
    return container.runtime == RuntimeKind::kNone ? aorta_path : container_mount_path;
  }
  // Ranks started on each node: multi_node.nproc_per_node, or gpus_per_node when 0.
  int ranks_per_node() const { return multi_node.nproc_per_node > 0 ? multi_node.nproc_per_node : gpus_per_node; }
  bool has_enforceable_threshold() const {
    for (const auto& t : thresholds)
      if (t.value) return true;
    return false;
  }
};

}  // namespace aorta::config
