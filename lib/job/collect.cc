#include "job/collect.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/phase.h"

namespace aorta::job {
namespace fs = std::filesystem;

bool is_safe_relative_path(const std::string& path) {
  if (path.empty() || path[0] == '/') return false;
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7f) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

std::vector<FreshFile> parse_file_listing(const std::string& listing, std::vector<std::string>& rejected) {
  std::vector<FreshFile> files;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\0', start);
    if (end == std::string::npos) end = listing.size();
    std::string entry = listing.substr(start, end - start);
    start = end + 1;
    size_t tab = entry.find('\t');
    if (tab == std::string::npos) continue;
    std::string path = entry.substr(tab + 1);
    if (!is_safe_relative_path(path)) {
      rejected.push_back(path);
      continue;
    }
    // The transport merges stderr into the listing: a stray line (a warning from the
    // container engine) ends in a newline, so the time stamp follows the last one.
    std::string stamp = entry.substr(0, tab);
    if (size_t newline = stamp.rfind('\n'); newline != std::string::npos) stamp = stamp.substr(newline + 1);
    try {
      files.push_back({std::stod(stamp), path});
    } catch (const std::exception&) {
      rejected.push_back(path);
    }
  }
  return files;
}

std::string trace_tree(const std::string& relative_path) {
  size_t start = 0;
  while (start < relative_path.size()) {
    size_t slash = relative_path.find('/', start);
    if (slash == std::string::npos) break;
    if (relative_path.compare(start, slash - start, "torch_profiler") == 0) return relative_path.substr(0, slash);
    start = slash + 1;
  }
  return "";
}

namespace {

// True when dest resolves inside root and no existing symlink redirects it.
bool inside(const fs::path& root, const fs::path& dest) {
  std::error_code ec;
  fs::path canon_root = fs::weakly_canonical(root, ec);
  fs::path canon = fs::weakly_canonical(dest, ec);
  if (ec) return false;
  auto [r, d] = std::mismatch(canon_root.begin(), canon_root.end(), canon.begin(), canon.end());
  return r == canon_root.end();
}

std::string listing_command(const std::string& repo, double floor) {
  // -type f skips symlinks (find does not follow them); the prunes skip our own work
  // area, earlier combined copies and git metadata. %T@ lets us keep the newest tree.
  return "cd " + shell_quote(repo) +
         " && find . \\( -name .git -o -name .cvs-aorta -o -name combined_traces \\) -prune -o -type f -path "
         "'*/torch_profiler/*' -newermt @" + fmt::format("{:.0f}", std::floor(floor)) + " -printf '%T@\\t%P\\0'";
}

// Where the listing starts: the run's own output folder, else the repository.
std::string listing_root(const NodeExec& exec, const RunState& state) {
  return state.trace_dir.empty() ? exec.variant().node_repo_path() : state.trace_dir;
}

}  // namespace

std::vector<std::string> keep_newest_per_directory(std::vector<FreshFile>& files) {
  // Only traces compete: a log or any other file beside them is kept as it is.
  auto is_trace = [](const std::string& path) {
    return path.ends_with(".json") || path.ends_with(".json.gz");
  };
  std::vector<FreshFile> others;
  std::erase_if(files, [&](const FreshFile& f) {
    if (is_trace(f.path)) return false;
    others.push_back(f);
    return true;
  });
  std::map<std::string, FreshFile> newest;
  for (const auto& f : files) {
    std::string dir = fs::path(f.path).parent_path().string();
    auto it = newest.find(dir);
    if (it == newest.end() || f.mtime > it->second.mtime) newest[dir] = f;
  }
  std::vector<std::string> dropped;
  for (const auto& f : files)
    if (newest[fs::path(f.path).parent_path().string()].path != f.path) dropped.push_back(f.path);
  files = std::move(others);
  for (auto& [dir, f] : newest) files.push_back(f);
  return dropped;
}

void snapshot_existing_traces(NodeExec& exec, RunState& state) {
  auto listings = exec.in_containers(listing_command(listing_root(exec, state), 0), std::chrono::seconds(120));
  for (const auto& r : listings) {
    if (!r.result.ok() || r.result->exit_code != 0) continue;  // no tree yet: nothing to exclude
    std::vector<std::string> rejected;
    for (const auto& f : parse_file_listing(r.result->output, rejected)) state.traces_before[r.host][f.path] = f.mtime;
  }
}

std::vector<std::string> collect_traces(NodeExec& exec, RunState& state, bool combined, const ProgressFn& progress) {
  std::vector<std::string> notes;
  const auto started = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point from) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - from).count();
  };
  const auto& v = exec.variant();
  const auto& hosts = exec.hosts();
  state.collection_errors.clear();
  fs::path artifact = state.output_root / (combined ? "combined_traces" : "traces");
  size_t nodes = combined ? hosts.size() : 1;
  std::vector<std::string> commands;
  for (size_t i = 0; i < hosts.size(); ++i) {
    double floor = state.trace_floor.count(hosts[i]) ? state.trace_floor.at(hosts[i]) : 0;
    commands.push_back(listing_command(listing_root(exec, state), floor));
  }
  auto listings = exec.in_containers_each(commands, std::chrono::seconds(v.timeout_seconds));
  std::string first_tree;
  std::set<std::pair<std::string, double>> seen;  // (path, mtime) already collected
  for (size_t i = 0; i < nodes; ++i) {
    const std::string& host = hosts[i];
    auto fail = [&](const std::string& message) { state.collection_errors.emplace_back(host, message); };
    const auto& r = listings[i].result;
    if (!r.ok()) {
      fail(r.error().message);
      continue;
    }
    if (r->exit_code != 0) {
      fail("listing traces failed (exit " + std::to_string(r->exit_code) + "): " + r->output.substr(0, 500));
      continue;
    }
    std::vector<std::string> rejected;
    std::vector<FreshFile> files = parse_file_listing(r->output, rejected);
    if (!rejected.empty()) fail("refused unsafe artifact path(s): " + rejected.front());
    const auto& before = state.traces_before[host];
    std::erase_if(files, [&](const FreshFile& f) {
      auto it = before.find(f.path);
      return it != before.end() && it->second == f.mtime;
    });
    if (!combined && !files.empty()) {
      // Script mode keeps only the newest tree: the one whose newest file is newest.
      std::map<std::string, double> newest;
      for (const auto& f : files) newest[trace_tree(f.path)] = std::max(newest[trace_tree(f.path)], f.mtime);
      auto best = std::max_element(newest.begin(), newest.end(),
                                   [](const auto& a, const auto& b) { return a.second < b.second; });
      std::string keep = best->first;
      files.erase(std::remove_if(files.begin(), files.end(), [&](const FreshFile& f) { return trace_tree(f.path) != keep; }),
                  files.end());
    }
    if (files.empty()) {
      if (rejected.empty()) fail("No fresh torch_profiler files found");
      continue;
    }
    for (const auto& f : keep_newest_per_directory(files)) notes.push_back(host + ": older trace left behind: " + f);
    // On storage the nodes share, every node lists every rank's files: each file is
    // taken once, from the first node that lists it.
    size_t listed = files.size();
    std::erase_if(files, [&](const FreshFile& f) { return !seen.emplace(f.path, f.mtime).second; });
    if (files.empty()) {
      notes.push_back(host + ": its " + std::to_string(listed) +
                      " trace file(s) are on shared storage and were collected once, with an earlier node");
      continue;
    }
    fs::path dest_root = combined ? artifact / ("node_" + std::to_string(i)) : artifact;
    std::vector<std::string> trees;
    std::string error;
    const auto node_started = std::chrono::steady_clock::now();
    uintmax_t bytes = 0;
    size_t fetched = 0;
    for (const auto& f : files) {
      fs::path dest = dest_root / f.path;
      std::error_code ec;
      fs::create_directories(dest.parent_path(), ec);
      if (ec || !inside(state.output_root, dest)) {
        error = "refused to write outside the output folder: " + f.path;
        break;
      }
      std::string remote = exec.host_path(listing_root(exec, state) + "/" + f.path);
      if (Status s = exec.transport().download(host, remote, dest); !s) {
        error = "download of " + f.path + " failed: " + s.error().message;
        break;
      }
      std::error_code size_ec;
      bytes += fs::file_size(dest, size_ec);
      ++fetched;
      std::string tree = trace_tree(f.path);
      if (std::find(trees.begin(), trees.end(), tree) == trees.end()) trees.push_back(tree);
    }
    if (progress) {
      double seconds = since(node_started);
      progress(fmt::format("[collect] {}/{} nodes: {} {}/{} file(s), {:.1f} MB in {:.1f} s ({:.1f} MB/s){}; elapsed {:.1f} s",
                           i + 1, nodes, host, fetched, files.size(), bytes / 1e6, seconds,
                           seconds > 0 ? bytes / 1e6 / seconds : 0.0, error.empty() ? "" : ", stopped by a failure",
                           since(started)));
    }
    if (!error.empty()) {
      fail(error);
      continue;
    }
    std::sort(trees.begin(), trees.end());
    if (first_tree.empty()) first_tree = trees.front();
    state.trace_trees[host] = trees;
  }
  if (!state.trace_trees.empty())
    state.artifacts["torch_traces"] = combined ? artifact : artifact / first_tree;
  return notes;
}

std::vector<std::string> collect_logs(NodeExec& exec, RunState& state) {
  std::vector<std::string> warnings;
  const auto& v = exec.variant();
  for (const auto& phase : state.launched_phases) {
    for (size_t i = 0; i < exec.hosts().size(); ++i) {
      std::string key = fmt::format("{}_log_node_{}", phase, i);
      if (state.artifacts.count(key)) continue;
      fs::path dest = state.output_root / fmt::format("{}-node-{}.log", phase, i);
      std::error_code ec;
      fs::create_directories(dest.parent_path(), ec);
      std::string remote = exec.host_path(node_work_dir(v, state.run_id, i) + "/" + phase + ".log");
      if (Status s = exec.transport().download(exec.hosts()[i], remote, dest); !s) {
        warnings.push_back(fmt::format("Could not collect {} log from {}: {}", phase, exec.hosts()[i], s.error().message));
        continue;
      }
      state.artifacts[key] = dest;
      if (phase == "benchmark" && !state.artifacts.count("training_log")) state.artifacts["training_log"] = dest;
    }
  }
  return warnings;
}

bool resolves_inside(const fs::path& root, const fs::path& dest) { return inside(root, dest); }

}  // namespace aorta::job
