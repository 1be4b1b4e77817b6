// Bringing fresh profiler traces and phase logs home from every node (reference
// §1.8). One node's failure never stops the others, and nothing a node names can
// write outside the run's output folder.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"
#include "job/phase.h"
#include "job/run_state.h"

namespace aorta::job {

struct FreshFile {
  double mtime = 0;
  std::string path;  // relative to the repository, e.g. out/torch_profiler/rank0/x.json
  int64_t size = -1;  // bytes on the node; -1 when the listing did not say
  // find's %y: 'f' a regular file, 'l' a link, ...; 'P' a folder the walk left out
  // unread (an earlier run's folder of the suite, an earlier collection's copy);
  // 'C' the count (in size) of stale files the node counted instead of listing.
  char type = 'f';
  bool unsafe = false;  // a name no copy may take (is_safe_relative_path): never collected
  // Which file it was (find's %D and %i): the copy opens that one or none. -1 when
  // the listing did not say.
  int64_t device = -1, inode = -1;
};

// Parses `find -printf '%T@\t%s\t%P\0'` output (the size may be left out, a type
// letter and a tab may come first, `<device>:<inode>\t` may come before the path;
// `P\t<path>` names a pruned folder, `L\t<path>` a link to a folder, `W\t<text>`
// find's complaints, `C\t<n>` n stale files counted, not listed); entries with unsafe paths are
// dropped and reported in `rejected`, and, when `unsafe` is given, kept there whole
// (unsafe set) so their age can still be judged.
std::vector<FreshFile> parse_file_listing(const std::string& listing, std::vector<std::string>& rejected,
                                          std::vector<FreshFile>* unsafe = nullptr);

// A file or folder a collection looked at and left, with why.
struct SkippedCandidate {
  std::string path;
  std::string reason;
  bool folder = false;  // a folder left unread, not a file
};

// What decides which listed files are this run's traces (issue 28): the workload
// writes wherever its own launcher and config say, so the whole mount is listed.
struct TraceSelectionRules {
  double floor = 0;  // epoch seconds: older files are an earlier run's
  // Files found before the benchmark started (path -> mtime): unchanged ones are stale.
  const std::map<std::string, double>* before = nullptr;
  // This run's own output folder, relative to the repository (".cvs-aorta/<run-id>/"):
  // when the workload honoured the output override, only what it wrote there counts.
  std::string own_folder;
  bool newest_tree_only = false;  // script mode: the tree whose newest file is newest
};

struct TraceSelection {
  std::vector<FreshFile> files;
  std::vector<SkippedCandidate> skipped;
  std::vector<std::string> unsafe;       // this run's files with names no copy may take
  std::vector<std::string> walk_errors;  // what find said of folders it could not read
  size_t stale_unlisted = 0;  // files older than the floor the node counted, not listed
};

// Applies the rules in order: folders the walk left out, links to folders, anything
// but a regular file, older than the floor, unchanged since before the run (an unsafe
// name that is still there goes to `unsafe`), outside this run's own
// folder when that folder has traces, not the newest tree (script mode), an older
// trace in a rank folder that has a newer one.
TraceSelection select_traces(std::vector<FreshFile> listed, const TraceSelectionRules& rules);

// The stage-log lines of a selection: where the traces were found, then the skipped
// candidates grouped by folder and reason, each naming its files (a few, then a count).
std::vector<std::string> describe_selection(const std::string& host, const TraceSelection& selection);

// The trace tree of a file: its path up to and including the first torch_profiler.
std::string trace_tree(const std::string& relative_path);

// A relative path that stays inside its root: no absolute path, no "..", no empty
// or control-character components.
bool is_safe_relative_path(const std::string& path);

// True when `dest` resolves inside `root` and no existing symlink redirects it.
bool resolves_inside(const std::filesystem::path& root, const std::filesystem::path& dest);

// Keeps the newest trace (*.json, *.json.gz, *.json.zst) of each directory, and every other file
// (one trace per rank directory): the
// freshness floor allows a minute of clock skew, so a rerun within that minute, or
// Aorta's tensorboard and chrome_trace copies of one trace, would count a rank
// twice. Returns the paths dropped.
std::vector<std::string> keep_newest_per_directory(std::vector<FreshFile>& files);

// Lists the trace files already on every node into state.traces_before; call it
// just before the benchmark starts. Returns a note for each node it could not list.
std::vector<std::string> snapshot_existing_traces(NodeExec& exec, RunState& state);

// Lists every torch_profiler file of the repository (as select_traces says; the
// suite's own folders but this run's and earlier collections' copies left out) and
// collects traces into state.output_root (combined_traces/node_<i>/... in torchrun
// mode with collect_traces, else traces/... from the head's newest tree); fills
// trace_trees, collection_errors and the torch_traces artifact. Returns notes.
// Every node is copied at once (kStreamsPerNode files at a time per node over SSH,
// each over a connection of its own: a node's compressor uses one core per stream;
// at most kNodesAtOnce x kStreamsPerNode streams in all); a .json trace is
// compressed on the node as it is sent (the variant's
// trace_compression) and kept compressed here (x.json.zst), its decompressed size
// checked against the node's listing and its frame checksums verified.
// progress gets one line per node as it finishes (nodes done of N, files, bytes
// here, rate, elapsed time), and one every progress_every for a node still going
// (with the bytes of the files it is writing).
inline constexpr size_t kNodesAtOnce = 16;
inline constexpr size_t kStreamsPerNode = 4;
inline constexpr std::chrono::milliseconds kProgressEvery{15000};
std::vector<std::string> collect_traces(NodeExec& exec, RunState& state, bool combined,
                                        const ProgressFn& progress = {},
                                        std::chrono::milliseconds progress_every = kProgressEvery);

// With analysis.archive_traces outliers or none, collect_traces places the files and
// chooses their compression but copies nothing (state.deferred_copies; node_traces names
// each trace by where its copy would go). This copies those of them in `wanted` (copy
// paths here) and returns the ones now here; a node's failure is a note. Once only.
std::set<std::string> archive_traces(NodeExec& exec, RunState& state, const std::set<std::string>& wanted,
                                     std::vector<std::string>& notes, const ProgressFn& progress = {});

// Downloads <phase>.log of every launched phase and node to <phase>-node-<i>.log.
// Returns warnings for logs that could not be fetched.
std::vector<std::string> collect_logs(NodeExec& exec, RunState& state);

}  // namespace aorta::job
