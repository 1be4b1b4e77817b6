#include "job/collect.h"

#include <algorithm>
#include <chrono>
#include <set>

#include <fmt/format.h>

#include "common/atomic_file.h"
#include "redact/redact_file.h"
#include "common/utf8.h"
#include "job/collect_copy.h"
#include "job/collect_node_commands.h"
#include "job/phase.h"
#include "job/telemetry_sampler.h"
#include "trace/trace_files.h"

// The collection's steps in order: list every node, choose its files
// (collect_selection.cc), place them under the output folder, copy them
// (collect_copy.cc), and record what came; and the phase logs' copies.
namespace aorta::job {
namespace fs = std::filesystem;

namespace {

// Every node's listing (trace_listing_command), each against its own floor: files
// older than that are only counted past the first few.
std::vector<HostResult> list_every_node(NodeExec& exec, const RunState& state) {
  std::vector<std::string> commands;
  for (const auto& host : exec.hosts()) {
    auto floor = state.trace_floor.find(host);
    commands.push_back(trace_listing_command(exec.variant().node_repo_path(), state.run_id,
                                             floor == state.trace_floor.end() ? 0 : floor->second));
  }
  return exec.in_containers_each(commands, std::chrono::seconds(exec.variant().timeout_seconds));
}

// Marks the folder as a collection's copy (kCopyMarker): a later run whose checkout
// holds this output folder leaves it unread. Made before any copy lands in it.
std::string mark_copy_folder(const fs::path& folder, const fs::path& output_root, const std::string& run_id) {
  const fs::path marker = folder / kCopyMarker;
  if (!resolves_inside(output_root, marker)) return "refused to write outside the output folder: " + marker.string();
  std::error_code ec;
  fs::create_directories(folder, ec);
  Status written = write_file_atomically(
      marker, "Trace copies made by aorta_suite (run " + run_id + "): later collections never walk this folder.\n");
  return written ? "" : written.error().message;
}

std::string own_folder(const RunState& state) { return std::string(kSuiteFolder) + "/" + state.run_id + "/"; }

// Where a listed file goes under the collection's folder: this run's own output
// folder's files as <output>/torch_profiler/... (the suite's folder is no part of
// what the workload calls its output), every other file as listed.
std::string here_relative(const std::string& path, const RunState& state) {
  const std::string own = own_folder(state);
  return path.starts_with(own) ? path.substr(own.size()) : path;
}

// A failure of the node's collection, for the report.
void fail(RunState& state, const std::string& host, const std::string& message,
          CollectionFailure reason = CollectionFailure::kOther) {
  state.collection_errors.push_back({host, message, reason});
}

// How a node's collection error begins when it listed no trace of this run.
constexpr const char* kNoFreshTraces = "No fresh torch_profiler files found";

// Why a node that listed no file of this run fails: where the workload writes its
// traces, and how many candidates were skipped.
std::string nothing_fresh(const config::Variant& v, const TraceSelection& selection) {
  size_t files_skipped = selection.stale_unlisted + std::count_if(selection.skipped.begin(), selection.skipped.end(),
                                                                  [](const SkippedCandidate& c) { return !c.folder; });
  return fmt::format("{} under {}: {}. The workload writes its traces to "
                     "<training.output_dir>/torch_profiler, as {} sets it, relative to the folder it starts in: "
                     "keep that folder inside aorta_path",
                     kNoFreshTraces, v.node_repo_path(),
                     selection.skipped.empty() && selection.stale_unlisted == 0
                         ? std::string("no file under a torch_profiler folder there")
                         : fmt::format("{} file(s) and {} folder(s) skipped, each named with why in the stage log",
                                       files_skipped, selection.skipped.size() + selection.stale_unlisted - files_skipped),
                     v.base_config);
}

// This run's files in node i's listing (select_traces), the stage-log lines about
// them added to notes. A listing that failed, an unsafe name or nothing of this run
// fails the node.
std::vector<FreshFile> chosen_files(const NodeExec& exec, RunState& state, size_t i,
                                    const Result<cluster::CommandResult>& r, bool combined,
                                    std::vector<std::string>& notes) {
  const auto& v = exec.variant();
  const std::string& host = exec.hosts()[i];
  if (!r.ok()) {
    fail(state, host, r.error().message);
    return {};
  }
  if (r->exit_code != 0) {
    fail(state, host, "listing traces failed (exit " + std::to_string(r->exit_code) + "): " + r->output.substr(0, 500));
    return {};
  }
  std::vector<std::string> rejected;
  std::vector<FreshFile> unsafe;
  std::vector<FreshFile> entries = parse_file_listing(r->output, rejected, &unsafe);
  entries.insert(entries.end(), unsafe.begin(), unsafe.end());
  TraceSelectionRules rules;
  rules.floor = state.trace_floor.count(host) ? state.trace_floor.at(host) : 0;
  rules.before = &state.traces_before[host];
  rules.own_folder = own_folder(state);
  rules.newest_tree_only = !combined;
  TraceSelection selection = select_traces(std::move(entries), rules);
  for (auto& line : describe_selection(host, selection)) notes.push_back(std::move(line));
  for (const auto& said : selection.walk_errors)
    notes.push_back(host + ": the walk of " + v.node_repo_path() + " could not read everything; traces there are not "
                    "seen: " + printable(said));
  if (!selection.unsafe.empty()) fail(state, host, "refused unsafe artifact path(s): " + printable(selection.unsafe.front()));
  if (selection.files.empty() && selection.unsafe.empty())
    fail(state, host, nothing_fresh(v, selection), CollectionFailure::kNothingFresh);
  return std::move(selection.files);
}

// On storage the nodes share, every node lists every rank's files: each file is
// taken once, from the first node that lists it. False, with a note, when the node
// has none left.
bool drop_seen(std::vector<FreshFile>& files, std::set<std::pair<std::string, double>>& seen,
               const std::string& host, std::vector<std::string>& notes) {
  size_t listed = files.size();
  std::erase_if(files, [&](const FreshFile& f) { return !seen.emplace(f.path, f.mtime).second; });
  if (!files.empty()) return true;
  notes.push_back(host + ": its " + std::to_string(listed) +
                  " trace file(s) are on shared storage and were collected once, with an earlier node");
  return false;
}

// Every copy is checked against the size the node listed: a listing without one
// (or one past any disk, 16 TiB) would turn the check off, so the node is refused.
std::string unsized_error(const std::vector<FreshFile>& files) {
  auto unsized = std::find_if(files.begin(), files.end(),
                              [](const FreshFile& f) { return f.size < 0 || f.size > (int64_t{1} << 44); });
  if (unsized == files.end()) return "";
  return fmt::format("the node listed {} for {}: no copy is taken that cannot be checked",
                     unsized->size < 0 ? std::string("no size") : fmt::format("{} bytes", unsized->size),
                     printable(unsized->path));
}

// Node i's part of the collection, each file given its place under dest_root;
// node.error says why one could not have it.
NodeCopy place_files(size_t i, const std::string& host, std::vector<FreshFile> files, const fs::path& dest_root,
                     const RunState& state) {
  NodeCopy node;
  node.index = i;
  node.host = host;
  node.files = std::move(files);
  for (const auto& f : node.files) {
    fs::path dest = dest_root / here_relative(f.path, state);
    // Checked before any folder is made: a link already in the output folder must
    // not get even empty folders created where it points.
    // The copy may end in .zst or .gz: a link planted at any of the names is refused.
    if (!resolves_inside(state.output_root, dest) || !resolves_inside(state.output_root, dest.string() + ".zst") ||
        !resolves_inside(state.output_root, dest.string() + ".gz")) {
      node.error = "refused to write outside the output folder: " + f.path;
      break;
    }
    std::error_code ec;
    fs::create_directories(dest.parent_path(), ec);
    if (ec) {
      node.error = "cannot create " + dest.parent_path().string() + ": " + ec.message();
      break;
    }
    node.dests.push_back(dest);
  }
  return node;
}

// Where node i's copies go: its own folder when every node's traces are combined.
fs::path node_folder(const fs::path& artifact, bool combined, size_t i) {
  return combined ? artifact / ("node_" + std::to_string(i)) : artifact;
}

// The node's traces for node-side analysis: each one's path on the node and its copy
// here, by the copy's path as head-side analysis reads them (trace::find_traces).
void record_node_traces(const NodeCopy& node, const fs::path& folder, const std::string& node_repo, RunState& state) {
  RunState::NodeTraces traces{node.index, node.host, folder, {}};
  for (size_t f = 0; f < node.files.size(); ++f)
    if (trace::is_trace_name(node.dests[f].filename().string()))
      traces.files.emplace_back(node_repo + "/" + node.files[f].path, copy_destination(node, f).string());
  std::sort(traces.files.begin(), traces.files.end(),
            [](const auto& a, const auto& b) { return fs::path(a.second) < fs::path(b.second); });
  state.node_traces.push_back(std::move(traces));
}

// What the copies brought: each node's trace trees, or its failure; the torch_traces
// artifact (combined: every node's folder, else the head's tree).
void record_copies(std::vector<NodeCopy>& copies, RunState& state, bool combined, const fs::path& artifact,
                   const std::string& node_repo) {
  std::string first_tree;
  for (auto& node : copies) {
    if (!node.error.empty()) {
      fail(state, node.host, node.error);
      continue;
    }
    if (node.trees.empty()) {  // every job skipped without a failure of its own
      fail(state, node.host, "no file was copied");
      continue;
    }
    std::sort(node.trees.begin(), node.trees.end());
    if (first_tree.empty()) first_tree = node.trees.front();
    state.trace_trees[node.host] = node.trees;
    record_node_traces(node, node_folder(artifact, combined, node.index), node_repo, state);
  }
  // In the order head-side analysis reads the copies: by path (trace::find_traces).
  std::sort(state.node_traces.begin(), state.node_traces.end(),
            [](const auto& a, const auto& b) { return a.folder < b.folder; });
  if (!state.trace_trees.empty())
    state.artifacts["torch_traces"] = combined ? artifact : artifact / here_relative(first_tree, state);
}

// analysis.archive_traces outliers or none: the traces stay on their nodes, each named
// by where its copy would go (the compression chosen as for a copy), for node-side
// analysis and archive_traces.
void defer_copies(NodeExec& exec, std::vector<NodeCopy>& copies, RunState& state, bool combined,
                  const fs::path& artifact, std::vector<std::string>& notes) {
  choose_compression(exec, copies, notes);
  size_t files = 0;
  for (auto& node : copies) {
    for (const auto& f : node.files)
      if (std::string tree = trace_tree(f.path); std::find(node.trees.begin(), node.trees.end(), tree) == node.trees.end())
        node.trees.push_back(tree);
    files += node.files.size();
  }
  record_copies(copies, state, combined, artifact, exec.variant().node_repo_path());
  notes.push_back(fmt::format("{} file(s) of {} node(s) left on the nodes for node-side analysis "
                              "(analysis.archive_traces {})", files, copies.size(),
                              exec.variant().analysis.archive_traces));
  state.deferred_copies = std::make_shared<DeferredCopies>(DeferredCopies{std::move(copies)});
}

// Node i's <phase>.log, copied by the checked walk (checked_copy_command), never a
// download by path: a folder of its path swapped for a link by a process the
// workload left behind is refused. It runs where the phase ran, in the container
// while there is one (teardown copies the logs before it removes them); without
// one, on the host from aorta_path, checked the same way.
cluster::CopyJob log_copy_job(const NodeExec& exec, const RunState& state, size_t i, const std::string& phase,
                              const fs::path& dest) {
  const auto& v = exec.variant();
  const std::string& host = exec.hosts()[i];
  const std::string node_path = node_work_dir(v, state.run_id, i) + "/" + phase + ".log";
  if (state.container_started) {
    WalkStart start = walk_start(v.node_repo_path(), node_path);
    return {host, exec.wrap(host, checked_copy_command(start.root, start.relative)), node_path, dest};
  }
  const std::string host_file = exec.host_path(node_path);
  WalkStart start = walk_start(v.aorta_path, host_file);
  return {host, checked_copy_command(start.root, start.relative), host_file, dest};
}

// Why a log's copy brought nothing ("" when it came).
std::string log_copy_error(const cluster::CopyJob& job, const Result<cluster::StreamResult>& r) {
  if (!r) return r.error().message;
  if (r->exit_code == 0) return "";
  const std::string said = copy_said(r->errors);
  if (r->exit_code == kChangedSinceListed) return refused_unlisted(job.host, job.remote_path, said);
  return fmt::format("the copy of {} on the node failed (exit {}): {}", printable(job.remote_path), r->exit_code,
                     printable(said));
}
}  // namespace

std::vector<std::string> snapshot_existing_traces(NodeExec& exec, RunState& state) {
  const auto& v = exec.variant();
  auto listings = list_every_node(exec, state);
  std::vector<std::string> notes;
  for (const auto& r : listings) {
    if (!r.result.ok() || r.result->exit_code != 0) {
      // Not fatal: the freshness floor still holds; only a rerun within its minute
      // of clock skew could then count the last run's traces.
      notes.push_back(fmt::format("{}: could not list the traces already in {} before the benchmark ({}); files "
                                  "written up to a minute before it may be taken as this run's",
                                  r.host, v.node_repo_path(),
                                  printable(r.result.ok() ? r.result->output.substr(0, 300) : r.result.error().message)));
      continue;
    }
    std::vector<std::string> rejected;
    std::vector<FreshFile> unsafe;
    auto listed = parse_file_listing(r.result->output, rejected, &unsafe);
    listed.insert(listed.end(), unsafe.begin(), unsafe.end());
    for (const auto& f : listed)
      if (f.type == 'f') state.traces_before[r.host][f.path] = f.mtime;
  }
  return notes;
}


std::vector<std::string> collect_traces(NodeExec& exec, RunState& state, bool combined, const ProgressFn& progress,
                                        std::chrono::milliseconds progress_every) {
  std::vector<std::string> notes;
  state.collection_errors.clear();
  fs::path artifact = state.output_root / (combined ? "combined_traces" : "traces");
  size_t nodes = combined ? exec.hosts().size() : 1;
  auto listings = list_every_node(exec, state);
  std::vector<NodeCopy> copies;  // the nodes with files to copy, in node order
  std::set<std::pair<std::string, double>> seen;  // (path, mtime) already collected
  state.trace_folders.clear();
  state.node_traces.clear();
  state.deferred_copies.reset();
  bool shared = false;
  for (size_t i = 0; i < nodes; ++i) {
    const std::string& host = exec.hosts()[i];
    std::vector<FreshFile> files = chosen_files(exec, state, i, listings[i].result, combined, notes);
    const size_t listed = files.size();
    const bool kept = !files.empty() && drop_seen(files, seen, host, notes);
    shared = shared || files.size() < listed;
    if (!kept) continue;
    if (std::string unsized = unsized_error(files); !unsized.empty()) {
      fail(state, host, unsized);
      continue;
    }
    fs::path dest_root = node_folder(artifact, combined, i);
    NodeCopy node = place_files(i, host, std::move(files), dest_root, state);
    if (!node.error.empty()) {
      fail(state, host, node.error);
      continue;
    }
    // Only the head's folder without combining: it may hold other nodes' traces (shared
    // storage, or a script that gathers them), so it names a node only in a one-node run.
    if (combined || exec.hosts().size() == 1) state.trace_folders[dest_root] = host;
    copies.push_back(std::move(node));
  }
  if (shared) state.trace_folders.clear();
  if (!copies.empty())
    if (std::string unmarked = mark_copy_folder(artifact, state.output_root, state.run_id); !unmarked.empty()) {
      for (auto& node : copies) fail(state, node.host, unmarked);
      copies.clear();
    }
  if (exec.variant().analysis.archive_traces != "all") {
    defer_copies(exec, copies, state, combined, artifact, notes);
    return notes;
  }
  copy_all(exec, copies, nodes, progress, progress_every, notes);
  record_copies(copies, state, combined, artifact, exec.variant().node_repo_path());
  return notes;
}

std::vector<std::string> collect_logs(NodeExec& exec, RunState& state) {
  std::vector<std::string> warnings;
  const auto& v = exec.variant();
  // Every node's logs at once (a round trip or two each); one node's logs in order.
  std::vector<cluster::CopyJob> jobs;
  std::vector<std::pair<std::string, std::string>> keys;  // (artifact key, phase) per job
  for (const auto& phase : state.launched_phases) {
    for (size_t i = 0; i < exec.hosts().size(); ++i) {
      // The sampler's records go to telemetry/node-<i>.log, under a key of their own:
      // they are data for the parsers, not a log the reports copy.
      const bool telemetry = phase == kTelemetryPhase;
      std::string key = fmt::format("{}{}_node_{}", phase, telemetry ? "" : "_log", i);
      if (state.artifacts.count(key)) continue;
      fs::path dest = telemetry ? state.output_root / "telemetry" / fmt::format("node-{}.log", i)
                                : state.output_root / fmt::format("{}-node-{}.log", phase, i);
      std::error_code ec;
      fs::create_directories(dest.parent_path(), ec);
      jobs.push_back(log_copy_job(exec, state, i, phase, dest));
      keys.emplace_back(std::move(key), phase);
    }
  }
  auto results = exec.transport().copy_batch(jobs, kNodesAtOnce, 1, std::chrono::seconds(v.timeout_seconds));
  for (size_t j = 0; j < jobs.size(); ++j) {
    const auto& [key, phase] = keys[j];
    if (std::string why = log_copy_error(jobs[j], results[j]); !why.empty()) {
      std::error_code ec;
      fs::remove(jobs[j].local_path, ec);  // whatever a refused or failed copy left
      warnings.push_back(fmt::format("Could not collect {} log from {}: {}", phase, jobs[j].host, why));
      continue;
    }
    // The copy stays in the run's folder and goes into the reports: redacted like any
    // report text, or not kept at all.
    if (Status redacted = redact::redact_file_in_place(jobs[j].local_path); !redacted) {
      std::error_code ec;
      fs::remove(jobs[j].local_path, ec);
      warnings.push_back(fmt::format("Removed the {} log from {}: it could not be redacted: {}", phase, jobs[j].host,
                                     redacted.error().describe()));
      continue;
    }
    state.artifacts[key] = jobs[j].local_path;
    if (phase == "benchmark" && !state.artifacts.count("training_log")) state.artifacts["training_log"] = jobs[j].local_path;
  }
  return warnings;
}

}  // namespace aorta::job
