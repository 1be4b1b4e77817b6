// Which listed files are this run's traces (select_traces: stale, foreign, pruned and
// duplicate candidates left, each with why) and the stage-log lines that say so.
#include <algorithm>
#include <ctime>
#include <map>

#include <fmt/format.h>

#include "common/utf8.h"
#include "job/checkout_lock.h"
#include "job/collect.h"
#include "job/phase.h"

namespace aorta::job {
namespace fs = std::filesystem;

std::vector<std::string> keep_newest_per_directory(std::vector<FreshFile>& files) {
  // Only traces compete: a log or any other file beside them is kept as it is.
  auto is_trace = [](const std::string& path) {
    return path.ends_with(".json") || path.ends_with(".json.gz") || path.ends_with(".json.zst");
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

namespace {

std::string clock_time(double epoch) {
  auto t = static_cast<std::time_t>(epoch);
  std::tm tm{};
  gmtime_r(&t, &tm);
  return fmt::format("{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d} UTC", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                     tm.tm_hour, tm.tm_min, tm.tm_sec);
}

// Moves the files `drop` says out of `files`, each into `skipped` with its reason.
template <typename Drop>
void skip_if(std::vector<FreshFile>& files, std::vector<SkippedCandidate>& skipped, Drop drop) {
  std::erase_if(files, [&](const FreshFile& f) {
    std::string reason = drop(f);
    if (reason.empty()) return false;
    skipped.push_back({f.path, std::move(reason), f.type == 'P' || f.type == 'L'});
    return true;
  });
}

}  // namespace

TraceSelection select_traces(std::vector<FreshFile> listed, const TraceSelectionRules& rules) {
  TraceSelection out;
  auto& files = listed;
  std::erase_if(files, [&](const FreshFile& f) {
    if (f.type == 'W') out.walk_errors.push_back(f.path);
    if (f.type == 'C') out.stale_unlisted += static_cast<size_t>(f.size);
    return f.type == 'W' || f.type == 'C' || (f.type == 'P' && is_lock_folder(f.path));
  });
  skip_if(files, out.skipped, [&](const FreshFile& f) -> std::string {
    if (f.type == 'P')
      return f.path.starts_with(std::string(kSuiteFolder) + "/")
                 ? "the suite's own folder of another run (its work files, or an earlier run's output): never collected"
                 : "an earlier collection's copy: never collected";
    if (f.type == 'L') return "a link to a folder: never followed (point training.output_dir at the folder itself)";
    if (f.type != 'f') return "not a regular file (a link or a special file): never followed";
    // No file time in the reason: a folder of stale traces is one line of the log.
    if (f.mtime < rules.floor) return "older than this run (written before " + clock_time(rules.floor) + ")";
    if (rules.before) {
      auto it = rules.before->find(f.path);
      if (it != rules.before->end() && it->second == f.mtime) return "there before the benchmark started, unchanged";
    }
    return "";
  });
  // A name no copy may take (a control character, ".."): it fails the node when it is
  // this run's; an earlier run's is only named above.
  std::erase_if(files, [&](const FreshFile& f) {
    if (!f.unsafe) return false;
    out.unsafe.push_back(f.path);
    return true;
  });
  if (!rules.own_folder.empty() &&
      std::any_of(files.begin(), files.end(), [&](const FreshFile& f) { return f.path.starts_with(rules.own_folder); }))
    skip_if(files, out.skipped, [&](const FreshFile& f) -> std::string {
      return f.path.starts_with(rules.own_folder) ? ""
                                                  : "outside this run's own output folder, where the workload wrote "
                                                    "this run's traces (it took the output_dir override)";
    });
  if (rules.newest_tree_only && !files.empty()) {
    std::map<std::string, double> newest;
    for (const auto& f : files) newest[trace_tree(f.path)] = std::max(newest[trace_tree(f.path)], f.mtime);
    auto best = std::max_element(newest.begin(), newest.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    const std::string keep = best->first;
    skip_if(files, out.skipped, [&](const FreshFile& f) -> std::string {
      return trace_tree(f.path) == keep ? "" : "not the newest trace tree (script mode collects one: " + keep + ")";
    });
  }
  std::vector<std::string> older = keep_newest_per_directory(files);
  for (auto& path : older) out.skipped.push_back({std::move(path), "an older trace beside a newer one of this run"});
  std::sort(files.begin(), files.end(), [](const FreshFile& a, const FreshFile& b) { return a.path < b.path; });
  out.files = std::move(files);
  return out;
}

std::vector<std::string> describe_selection(const std::string& host, const TraceSelection& selection) {
  std::vector<std::string> lines;
  std::map<std::string, size_t> per_tree;
  for (const auto& f : selection.files) ++per_tree[trace_tree(f.path)];
  for (const auto& [tree, count] : per_tree)
    lines.push_back(fmt::format("{}: found {} file(s) of this run in {}", host, count, printable(tree)));
  // One line per folder and reason, in the order first met: a folder of many stale
  // traces is one line, not one per file; past kLines, the rest as a count.
  constexpr size_t kNamed = 3, kLines = 12;
  std::vector<std::pair<std::string, std::string>> order;  // (folder, reason)
  std::map<std::pair<std::string, std::string>, std::vector<std::string>> names;
  for (const auto& s : selection.skipped) {
    fs::path p(s.path);
    std::pair<std::string, std::string> key{p.parent_path().string(), s.reason};
    auto& list = names[key];
    if (list.empty()) order.push_back(key);
    list.push_back(p.filename().string());
  }
  for (size_t k = 0; k < order.size() && k < kLines; ++k) {
    const auto& key = order[k];
    const auto& list = names[key];
    std::string named;
    for (size_t n = 0; n < list.size() && n < kNamed; ++n) named += (n ? ", " : "") + list[n];
    if (list.size() > kNamed) named += fmt::format(" and {} more", list.size() - kNamed);
    lines.push_back(printable(fmt::format("{}: skipped {}{}{}: {}", host, key.first.empty() ? "" : key.first + "/", named,
                                          list.size() > 1 ? fmt::format(" ({} entries)", list.size()) : "", key.second)));
  }
  if (selection.stale_unlisted > 0)
    lines.push_back(fmt::format("{}: skipped {} more file(s) under torch_profiler folders, older than this run: "
                                "counted on the node, not listed",
                                host, selection.stale_unlisted));
  if (order.size() > kLines) {
    size_t rest = 0;
    for (size_t k = kLines; k < order.size(); ++k) rest += names[order[k]].size();
    lines.push_back(fmt::format("{}: skipped {} more entries in {} more folder(s), for the same kinds of reason", host,
                                rest, order.size() - kLines));
  }
  return lines;
}

}  // namespace aorta::job
