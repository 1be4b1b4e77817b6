// What one invocation learns as its stages run. Stages read and fill it; reports
// read it at the end. Plain data, no behaviour.
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "metrics/run_metrics.h"
#include "metrics/trace_set.h"

namespace aorta::job {

// Why a node's trace collection failed, for the stages that decide on it: a node that
// listed no trace of this run wrote none (in an interrupted run, no failure of its own).
enum class CollectionFailure { kNothingFresh, kOther };

struct CollectionError {
  std::string host;
  std::string message;
  CollectionFailure reason = CollectionFailure::kOther;
};

enum class RunStatus { kPending, kRunning, kCompleted, kFailed, kTimeout };

// "pending" | "running" | "completed" | "failed" | "timeout", as the JSON report says it.
inline const char* run_status_name(RunStatus status) {
  switch (status) {
    case RunStatus::kPending: return "pending";
    case RunStatus::kRunning: return "running";
    case RunStatus::kCompleted: return "completed";
    case RunStatus::kFailed: return "failed";
    case RunStatus::kTimeout: return "timeout";
  }
  return "failed";
}

// The kernel-log scan CVS_DMESG_PARSER picks (job/kernel_log.h): our scan of
// `dmesg --time-format iso` over the run's seconds, or the original's legacy
// `dmesg -T` over its minutes.
enum class KernelLogBackend { kIso, kLegacy };

struct DeferredCopies;  // collect_copy.h

struct RunState {
  std::string run_id;                   // 32 hex digits, new per invocation
  std::filesystem::path output_root;    // <output_dir>/<run-id>
  RunStatus status = RunStatus::kPending;
  std::string error_message;
  std::optional<std::chrono::system_clock::time_point> started_at;
  std::optional<std::chrono::system_clock::time_point> ended_at;

  bool container_started = false;
  // Hosts where teardown's docker rm failed; the fixture's suite cleanup retries them once.
  std::vector<std::string> container_removal_failed;
  bool benchmark_started = false;
  std::vector<std::string> launched_phases;        // rccl, benchmark
  // phase -> host -> process group started (also in the node's pid file, which may
  // be gone with aorta_path); forgotten once stopped.
  std::map<std::string, std::map<std::string, long>> phase_pids;
  std::map<std::string, long> workdir_locks;       // host -> aorta_path lock holder pid
  std::map<std::string, std::string> host_owner;   // host -> uid:gid, restored at teardown
  std::map<std::string, double> trace_floor;       // host -> epoch seconds; older files are stale
  // host -> trace file -> mtime, as found before the benchmark started: unchanged
  // files are an earlier run's, even inside the clock-skew margin of trace_floor.
  std::map<std::string, std::map<std::string, double>> traces_before;
  std::optional<double> kernel_window_start;       // head node clock, epoch seconds
  KernelLogBackend kernel_log_backend = KernelLogBackend::kIso;
  std::optional<std::string> kernel_window_start_minute;  // legacy: the head's "Wed Sep 23 12:00"
  std::vector<std::string> kernel_log_matches;

  std::map<std::string, std::vector<std::string>> trace_trees;     // host -> trees collected
  // Where each node's copies were put -> that node, for naming a rank's node; empty when
  // the nodes listed the same files (shared storage: who wrote a file is unknown), and
  // when only the head's traces were collected in a run of several nodes.
  std::map<std::filesystem::path, std::string> trace_folders;
  // Node-side analysis (analysis.where "nodes"): each collected node's traces, each as
  // (its path on the node, its copy here), in the order of the copies' folders.
  struct NodeTraces {
    size_t index = 0;  // in the cluster
    std::string host;
    std::filesystem::path folder;  // where the node's copies were put
    std::vector<std::pair<std::string, std::string>> files;
  };
  std::vector<NodeTraces> node_traces;
  // analysis.archive_traces less than all, once applied: the copies kept here (the
  // outliers' or none), and how many traces stay only on their nodes (named host:path).
  struct TraceArchive {
    std::vector<std::string> kept;
    size_t on_nodes = 0;
  };
  std::optional<TraceArchive> trace_archive;
  std::shared_ptr<DeferredCopies> deferred_copies;  // the traces left on the nodes for now
  std::vector<CollectionError> collection_errors;  // cluster order
  std::map<std::string, std::filesystem::path> artifacts;          // torch_traces, training_log, ...

  std::optional<metrics::TraceSet> parse;
  std::optional<metrics::RunMetrics> result;
  std::optional<std::filesystem::path> report_file;

  double duration_seconds() const {
    if (!started_at) return 0;
    auto end = ended_at.value_or(std::chrono::system_clock::now());
    return std::chrono::duration<double>(end - *started_at).count();
  }
};

}  // namespace aorta::job
