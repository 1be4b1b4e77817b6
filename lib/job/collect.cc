#include "job/collect.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <ctime>
#include <map>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <set>

#include <fmt/format.h>

#include "common/redact_file.h"
#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/copy_check.h"
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

std::vector<FreshFile> parse_file_listing(const std::string& listing, std::vector<std::string>& rejected,
                                          std::vector<FreshFile>* unsafe) {
  std::vector<FreshFile> files;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\0', start);
    if (end == std::string::npos) end = listing.size();
    std::string entry = listing.substr(start, end - start);
    start = end + 1;
    // The transport merges stderr into the listing: a stray line (a warning from the
    // container engine) ends in a newline, so the record follows the last one before
    // its first tab.
    size_t tab = entry.find('\t');
    if (tab == std::string::npos) continue;
    if (size_t newline = entry.rfind('\n', tab); newline != std::string::npos) {
      entry.erase(0, newline + 1);
      tab = entry.find('\t');
    }
    FreshFile file;
    // A type letter first (find's %y; P a folder the walk left out, L a link to a
    // folder, W what find said about a folder it could not read).
    if (tab == 1 && std::isalpha(static_cast<unsigned char>(entry[0]))) {
      file.type = entry[0];
      entry.erase(0, 2);
      if (file.type == 'P' || file.type == 'L' || file.type == 'W') {
        file.path = entry;
        if (file.type == 'W' || is_safe_relative_path(entry)) {
          files.push_back(file);
        } else {
          rejected.push_back(entry);
          file.unsafe = true;
          if (unsafe) unsafe->push_back(file);
        }
        continue;
      }
      tab = entry.find('\t');
      if (tab == std::string::npos) continue;
    }
    std::string stamp = entry.substr(0, tab);
    std::string path = entry.substr(tab + 1);
    // A path cannot hold a tab (is_safe_relative_path): a second tab ends the size.
    if (size_t second = path.find('\t'); second != std::string::npos) {
      try {
        file.size = std::stoll(path.substr(0, second));
      } catch (const std::exception&) {
        file.size = -1;
      }
      path = path.substr(second + 1);
    }
    file.path = path;
    bool stamped = true;
    try {
      file.mtime = std::stod(stamp);
    } catch (const std::exception&) {
      stamped = false;
    }
    if (!is_safe_relative_path(path) || !stamped) {
      rejected.push_back(path);
      file.unsafe = true;
      if (unsafe && stamped) unsafe->push_back(std::move(file));
      continue;
    }
    files.push_back(std::move(file));
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

bool resolves_inside(const fs::path& root, const fs::path& dest) {
  std::error_code ec;
  fs::path canon_root = fs::weakly_canonical(root, ec);
  fs::path canon = fs::weakly_canonical(dest, ec);
  if (ec) return false;
  auto [r, d] = std::mismatch(canon_root.begin(), canon_root.end(), canon.begin(), canon.end());
  return r == canon_root.end();
}

namespace {

// Every file under a torch_profiler folder of the repository, whatever its age: the
// rules are applied here (select_traces), so the stage log can say what was skipped.
// Left out unread, each printed once as a P record: every .cvs-aorta folder but this
// run's own (the suite's work folders and earlier runs' outputs), and the copies an
// earlier collection left in a run folder (<hex run id>/combined_traces or /traces);
// .git silently. A link to a folder is printed as an L record and never followed;
// %y tells a link from a file. A folder find cannot read costs only itself: its
// complaint comes back as a W record and the listing still succeeds.
std::string listing_command(const std::string& repo, const std::string& run_id) {
  return "cd " + shell_quote(repo) +
         " && { e=$(mktemp 2>/dev/null) || e=/dev/null; find . -regextype posix-extended -name .git -prune -o \\( "
         "-path './.cvs-aorta/*' ! -path './.cvs-aorta/*/*' ! -name " + shell_quote(run_id) +
         " -o -regex '.*/[0-9a-f]{8,}/(combined_traces|traces)' \\) -type d -prune -printf 'P\\t%P\\0' -o -type l "
         "-xtype d -printf 'L\\t%P\\0' -o -path '*/torch_profiler/*' ! -type d -printf '%y\\t%T@\\t%s\\t%P\\0' "
         "2>\"$e\"; rc=$?; if [ -s \"$e\" ]; then printf 'W\\t%s\\0' \"$(head -c 2000 \"$e\" | tr '\\n' ' ')\"; fi; "
         "[ \"$e\" = /dev/null ] || rm -f \"$e\"; [ $rc -le 1 ]; }";
}

std::string own_folder(const RunState& state) { return std::string(kSuiteFolder) + "/" + state.run_id + "/"; }

// Where a listed file goes under the collection's folder: this run's own output
// folder's files as <output>/torch_profiler/... (the suite's folder is no part of
// what the workload calls its output), every other file as listed.
std::string here_relative(const std::string& path, const RunState& state) {
  const std::string own = own_folder(state);
  return path.starts_with(own) ? path.substr(own.size()) : path;
}

using Clock = std::chrono::steady_clock;

double since(Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); }

// One node's part of a collection.
struct NodeCopy {
  size_t index = 0;  // in exec.hosts()
  std::string host;
  std::vector<FreshFile> files;
  std::vector<fs::path> dests;  // where each file goes, before a compression suffix
  Compression compression = Compression::kNone;
  // Filled as the copies end (under the collection's mutex).
  size_t fetched = 0;
  uint64_t stored = 0;    // bytes written here (what came over the wire)
  uint64_t raw = 0;       // the files' own bytes
  std::string error;      // the first failure; the node's files not yet started are skipped
  bool reported = false;  // its closing progress line was printed
  std::vector<std::string> trees;
  Clock::time_point started{}, last_line{};
  size_t first_job = 0;   // its files' jobs are first_job, first_job + 1, ... in order
};

// What each node can compress with, as the variant asks: a node without the asked
// compressor fails with a message naming it; `auto` takes the best one it has.
void choose_compression(NodeExec& exec, std::vector<NodeCopy>& copies, std::vector<std::string>& notes) {
  const std::string& wanted = exec.variant().trace_compression;
  if (wanted == "none" || copies.empty()) return;
  std::vector<std::string> hosts;
  for (const auto& node : copies) hosts.push_back(node.host);
  auto probes = exec.transport().run_batch(hosts, std::vector<std::string>(hosts.size(), probe_compressor_command()),
                                           std::chrono::seconds(60));
  for (size_t k = 0; k < copies.size(); ++k) {
    NodeCopy& node = copies[k];
    std::string has;
    if (probes[k] && probes[k]->exit_code == 0) {
      const std::string& out = probes[k]->output;
      // The last word: a login banner or a warning may come first.
      for (const char* name : {"zstd", "gzip", "none"})
        if (out.rfind(name) != std::string::npos && (has.empty() || out.rfind(name) > out.rfind(has))) has = name;
    }
    if (wanted == "auto") {
      node.compression = has == "zstd" ? Compression::kZstd : has == "gzip" ? Compression::kGzip : Compression::kNone;
      if (has == "gzip" || has == "none")
        notes.push_back(node.host + ": no zstd on the node; traces travel " +
                        (has == "gzip" ? std::string("gzip-compressed") : std::string("uncompressed")));
      else if (!probes[k] || probes[k]->exit_code != 0)
        notes.push_back(node.host + ": could not tell which compressor the node has; traces travel uncompressed");
    } else if (has == wanted || (wanted == "gzip" && has == "zstd")) {
      // zstd's presence was probed first; gzip may be there too, so ask for it.
      node.compression = wanted == "zstd" ? Compression::kZstd : Compression::kGzip;
    } else {
      node.error = "trace_compression is " + wanted + " but " + node.host + " has no " + wanted +
                   (has.empty() ? " (the probe failed)" : " (it has: " + has + ")");
    }
  }
}

// Copies every node's files at once and checks each copy; fills the NodeCopy fields.
void copy_all(NodeExec& exec, std::vector<NodeCopy>& copies, size_t nodes, const ProgressFn& progress,
              std::chrono::milliseconds progress_every, std::vector<std::string>& notes) {
  const auto started = Clock::now();
  // A copy being written is newer than this (file times are coarse: a second's margin).
  const auto copy_start = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  choose_compression(exec, copies, notes);
  struct JobOf {
    NodeCopy* node;
    size_t file;
    Compression compression;
  };
  std::vector<cluster::CopyJob> jobs;
  std::vector<JobOf> owners;
  for (auto& node : copies) {
    if (!node.error.empty()) {
      node.reported = true;  // nothing to copy: no progress lines either
      continue;
    }
    node.started = node.last_line = started;
    node.first_job = jobs.size();
    for (size_t f = 0; f < node.files.size(); ++f) {
      const std::string& path = node.files[f].path;
      std::string remote = exec.host_path(exec.variant().node_repo_path() + "/" + path);
      // Traces are most of the bytes and compress ~15x; a .gz or a log goes as it is.
      Compression c = path.ends_with(".json") ? node.compression : Compression::kNone;
      fs::path local = node.dests[f].string() + compression_suffix(c);
      // Checked as it streams: a lying node's copy stops at what its listed size can take.
      const auto listed = static_cast<uint64_t>(node.files[f].size);
      jobs.push_back({node.host, compress_command(c, remote), remote, local,
                      c == Compression::kNone ? listed : max_compressed_bytes(listed)});
      owners.push_back({&node, f, c});
    }
  }
  std::mutex mutex;
  size_t finished = 0;
  std::vector<bool> job_ended(jobs.size(), false);  // guarded by mutex
  // `partial`: bytes of the files being written now.
  auto node_line = [&](const NodeCopy& node, uint64_t partial = 0) {
    double seconds = since(node.started);
    uint64_t stored = node.stored + partial;
    return fmt::format("{} {}/{} file(s), {:.1f} MB in {:.1f} s ({:.1f} MB/s); {:.1f} MB of traces ({:.1f} MB/s, {})",
                       node.host, node.fetched, node.files.size(), stored / 1e6, seconds,
                       seconds > 0 ? stored / 1e6 / seconds : 0.0, node.raw / 1e6,
                       seconds > 0 ? node.raw / 1e6 / seconds : 0.0, compression_name(node.compression));
  };
  auto done = [&](size_t j, const Result<cluster::StreamResult>& r) -> bool {
    const JobOf& job = owners[j];
    const FreshFile& file = job.node->files[job.file];
    const fs::path& local = jobs[j].local_path;
    std::string error;
    uint64_t raw = 0;
    if (!r) {
      error = "copy of " + file.path + " failed: " + r.error().message;
    } else if (r->exit_code != 0) {
      std::string said = r->errors.substr(0, 500);
      while (!said.empty() && std::isspace(static_cast<unsigned char>(said.back()))) said.pop_back();
      error = compression_name(job.compression) + " of " + file.path + " on the node failed (exit " +
              std::to_string(r->exit_code) + "): " + said;
    } else if (auto size = verified_size(local, job.compression, static_cast<uint64_t>(file.size)); !size) {
      error = "copy of " + file.path + " failed its check: " + size.error().message;
    } else if (file.size >= 0 && *size != static_cast<uint64_t>(file.size)) {
      error = "copy of " + file.path + " holds " + std::to_string(*size) + " bytes, the node listed " +
              std::to_string(file.size) + " (changed while it was copied?)";
    } else {
      raw = *size;
    }
    if (!error.empty()) {
      std::error_code ignored;
      fs::remove(local, ignored);  // a partial or damaged copy is never left to be analysed
    }
    std::lock_guard lock(mutex);
    job_ended[j] = true;
    NodeCopy& node = *job.node;
    if (!error.empty()) {
      if (node.error.empty()) node.error = error;  // another stream's may follow
    } else {
      ++node.fetched;
      node.stored += r->bytes;
      node.raw += raw;
      std::string tree = trace_tree(file.path);
      if (std::find(node.trees.begin(), node.trees.end(), tree) == node.trees.end()) node.trees.push_back(tree);
    }
    bool last = !node.reported && (!error.empty() || node.fetched == node.files.size());
    if (last) node.reported = true;
    if (progress && last) {
      progress(fmt::format("[collect] {}/{} nodes: {}{}; elapsed {:.1f} s", ++finished, nodes, node_line(node),
                           error.empty() ? "" : ", stopped by a failure", since(started)));
    }
    return error.empty();
  };
  // A node still copying gets a line every progress_every, with the bytes of the
  // file it is writing now: one large trace may take minutes.
  std::condition_variable wake;
  bool copied = false;
  std::thread watcher;
  if (progress && !jobs.empty())
    watcher = std::thread([&] {
      std::unique_lock lock(mutex);
      while (!wake.wait_for(lock, progress_every, [&] { return copied; })) {
        for (auto& node : copies) {
          if (node.reported || !node.error.empty()) continue;
          if (Clock::now() - node.last_line < progress_every) continue;
          uint64_t partial = 0;
          for (size_t j = node.first_job; j < node.first_job + node.files.size(); ++j) {
            if (job_ended[j]) continue;
            // Not started yet: no file, or one left by an earlier collection (older).
            std::error_code ec;
            const uintmax_t size = fs::file_size(jobs[j].local_path, ec);
            if (!ec && fs::last_write_time(jobs[j].local_path, ec) >= copy_start && !ec) partial += size;
          }
          node.last_line = Clock::now();
          progress(fmt::format("[collect] still copying: {}; elapsed {:.1f} s", node_line(node, partial), since(started)));
        }
      }
    });
  // Stopped and joined however copy_batch ends: a thread left joinable would end the
  // process if an exception passed through here.
  struct StopWatcher {
    std::thread& thread;
    std::mutex& mutex;
    bool& copied;
    std::condition_variable& wake;
    ~StopWatcher() {
      if (!thread.joinable()) return;
      {
        std::lock_guard lock(mutex);
        copied = true;
      }
      wake.notify_all();
      thread.join();
    }
  };
  {
    StopWatcher stop{watcher, mutex, copied, wake};
    if (!jobs.empty())
      exec.transport().copy_batch(jobs, kNodesAtOnce, kStreamsPerNode,
                                  std::chrono::seconds(exec.variant().timeout_seconds), done);
  }
  uint64_t stored = 0, raw = 0;
  for (const auto& node : copies) stored += node.stored, raw += node.raw;
  if (raw > 0 && stored < raw)
    notes.push_back(fmt::format("{:.1f} MB of traces collected as {:.1f} MB, compressed on the nodes", raw / 1e6,
                                stored / 1e6));
}

}  // namespace

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
    return f.type == 'W';
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
  if (order.size() > kLines) {
    size_t rest = 0;
    for (size_t k = kLines; k < order.size(); ++k) rest += names[order[k]].size();
    lines.push_back(fmt::format("{}: skipped {} more entries in {} more folder(s), for the same kinds of reason", host,
                                rest, order.size() - kLines));
  }
  return lines;
}

std::vector<std::string> snapshot_existing_traces(NodeExec& exec, RunState& state) {
  const auto& v = exec.variant();
  auto listings = exec.in_containers(listing_command(v.node_repo_path(), state.run_id),
                                     std::chrono::seconds(v.timeout_seconds));
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
  const auto& v = exec.variant();
  const auto& hosts = exec.hosts();
  state.collection_errors.clear();
  fs::path artifact = state.output_root / (combined ? "combined_traces" : "traces");
  size_t nodes = combined ? hosts.size() : 1;
  auto listings = exec.in_containers(listing_command(v.node_repo_path(), state.run_id), std::chrono::seconds(v.timeout_seconds));
  std::string first_tree;
  std::vector<NodeCopy> copies;  // the nodes with files to copy, in node order
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
    if (!selection.unsafe.empty()) fail("refused unsafe artifact path(s): " + printable(selection.unsafe.front()));
    std::vector<FreshFile> files = std::move(selection.files);
    if (files.empty()) {
      size_t files_skipped = std::count_if(selection.skipped.begin(), selection.skipped.end(),
                                           [](const SkippedCandidate& c) { return !c.folder; });
      if (selection.unsafe.empty())
        fail(fmt::format("No fresh torch_profiler files found under {}: {}. The workload writes its traces to "
                         "<training.output_dir>/torch_profiler, as {} sets it, relative to the folder it starts in: "
                         "keep that folder inside aorta_path",
                         v.node_repo_path(),
                         selection.skipped.empty()
                             ? std::string("no file under a torch_profiler folder there")
                             : fmt::format("{} file(s) and {} folder(s) skipped, each named with why in the stage log",
                                           files_skipped, selection.skipped.size() - files_skipped),
                         v.base_config));
      continue;
    }
    // On storage the nodes share, every node lists every rank's files: each file is
    // taken once, from the first node that lists it.
    size_t listed = files.size();
    std::erase_if(files, [&](const FreshFile& f) { return !seen.emplace(f.path, f.mtime).second; });
    if (files.empty()) {
      notes.push_back(host + ": its " + std::to_string(listed) +
                      " trace file(s) are on shared storage and were collected once, with an earlier node");
      continue;
    }
    // Every copy is checked against the size the node listed: a listing without one
    // (or one past any disk, 16 TiB) would turn the check off, so the node is refused.
    auto unsized = std::find_if(files.begin(), files.end(),
                                [](const FreshFile& f) { return f.size < 0 || f.size > (int64_t{1} << 44); });
    if (unsized != files.end()) {
      fail(fmt::format("the node listed {} for {}: no copy is taken that cannot be checked",
                       unsized->size < 0 ? std::string("no size") : fmt::format("{} bytes", unsized->size),
                       printable(unsized->path)));
      continue;
    }
    fs::path dest_root = combined ? artifact / ("node_" + std::to_string(i)) : artifact;
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
    if (!node.error.empty()) {
      fail(node.error);
      continue;
    }
    copies.push_back(std::move(node));
  }
  copy_all(exec, copies, nodes, progress, progress_every, notes);
  for (auto& node : copies) {
    if (!node.error.empty()) {
      state.collection_errors.emplace_back(node.host, node.error);
      continue;
    }
    if (node.trees.empty()) {  // every job skipped without a failure of its own
      state.collection_errors.emplace_back(node.host, "no file was copied");
      continue;
    }
    std::sort(node.trees.begin(), node.trees.end());
    if (first_tree.empty()) first_tree = node.trees.front();
    state.trace_trees[node.host] = node.trees;
  }
  if (!state.trace_trees.empty())
    state.artifacts["torch_traces"] = combined ? artifact : artifact / here_relative(first_tree, state);
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
      std::string key = fmt::format("{}_log_node_{}", phase, i);
      if (state.artifacts.count(key)) continue;
      fs::path dest = state.output_root / fmt::format("{}-node-{}.log", phase, i);
      std::error_code ec;
      fs::create_directories(dest.parent_path(), ec);
      std::string remote = exec.host_path(node_work_dir(v, state.run_id, i) + "/" + phase + ".log");
      jobs.push_back({exec.hosts()[i], "", remote, dest});
      keys.emplace_back(std::move(key), phase);
    }
  }
  auto results = exec.transport().copy_batch(jobs, kNodesAtOnce, 1, std::chrono::seconds(v.timeout_seconds));
  for (size_t j = 0; j < jobs.size(); ++j) {
    const auto& [key, phase] = keys[j];
    if (!results[j]) {
      warnings.push_back(fmt::format("Could not collect {} log from {}: {}", phase, jobs[j].host, results[j].error().message));
      continue;
    }
    // The copy stays in the run's folder and goes into the reports: redacted like any
    // report text, or not kept at all.
    if (Status redacted = redact_file_in_place(jobs[j].local_path); !redacted) {
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
