// The copy half of collect_traces: the compressor each node can use, one copy job per
// file, the check of each copy as it ends, and the progress lines (a node's closing
// line, and one every progress_every for a node still copying).
#include "job/collect_copy.h"

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "common/progress_pace.h"
#include "job/collect_node_commands.h"

namespace aorta::job {
namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

double since(Clock::time_point from) { return std::chrono::duration<double>(Clock::now() - from).count(); }

// The compressor a node's probe names: the last word, as a login banner or a warning
// may come first; empty when the probe failed.
std::string probed_compressor(const Result<cluster::CommandResult>& probe) {
  std::string has;
  if (!probe || probe->exit_code != 0) return has;
  const std::string& out = probe->output;
  for (const char* name : {"zstd", "gzip", "none"})
    if (out.rfind(name) != std::string::npos && (has.empty() || out.rfind(name) > out.rfind(has))) has = name;
  return has;
}

}  // namespace

// A node without the asked compressor fails with a message naming it; `auto` takes
// the best one it has.
void choose_compression(NodeExec& exec, std::vector<NodeCopy>& copies, std::vector<std::string>& notes) {
  const std::string& wanted = exec.variant().trace_compression;
  if (wanted == "none" || copies.empty()) return;
  // Asked where the copies run (the container, when there is one), not on the host.
  std::vector<std::string> hosts, probes_to_run;
  for (const auto& node : copies) {
    hosts.push_back(node.host);
    probes_to_run.push_back(exec.wrap(node.host, probe_compressor_command()));
  }
  auto probes = exec.transport().run_batch(hosts, probes_to_run, std::chrono::seconds(60));
  for (size_t k = 0; k < copies.size(); ++k) {
    NodeCopy& node = copies[k];
    const std::string has = probed_compressor(probes[k]);
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

namespace {

// Copy job j belongs to owners[j].node's file owners[j].file.
struct JobOf {
  NodeCopy* node;
  size_t file;
  Compression compression;
};
struct CopyJobs {
  std::vector<cluster::CopyJob> jobs;
  std::vector<JobOf> owners;
};

// One job per file of every node that has not failed yet, node by node.
CopyJobs plan_jobs(NodeExec& exec, std::vector<NodeCopy>& copies, Clock::time_point started) {
  CopyJobs plan;
  for (auto& node : copies) {
    if (!node.error.empty()) {
      node.reported = true;  // nothing to copy: no progress lines either
      continue;
    }
    node.started = node.last_line = started;
    node.first_job = plan.jobs.size();
    const std::string& repo = exec.variant().node_repo_path();
    for (size_t f = 0; f < node.files.size(); ++f) {
      const FreshFile& file = node.files[f];
      Compression c = copy_compression(node, f);
      fs::path local = copy_destination(node, f);
      // Checked as it streams: a lying node's copy stops at what its listed size can take.
      const auto listed = static_cast<uint64_t>(file.size);
      // Where the listing ran (in the container, if any), from the descriptor the
      // node-side walk opened: never a download by path.
      plan.jobs.push_back({node.host, exec.wrap(node.host, listed_copy_command(repo, file, c)), repo + "/" + file.path,
                           local, c == Compression::kNone ? listed : max_compressed_bytes(listed)});
      plan.owners.push_back({&node, f, c});
    }
  }
  return plan;
}

// What is wrong with an ended copy ("" when nothing); raw gets the file's own bytes.
std::string copy_error(const std::string& host, const FreshFile& file, const fs::path& local, Compression compression,
                       const Result<cluster::StreamResult>& r, uint64_t& raw) {
  if (!r) return "copy of " + file.path + " failed: " + r.error().message;
  if (r->exit_code != 0) {
    const std::string said = copy_said(r->errors);
    if (r->exit_code == kChangedSinceListed) return changed_since_listed(host, file.path, said);
    return compression_name(compression) + " of " + file.path + " on the node failed (exit " +
           std::to_string(r->exit_code) + "): " + said;
  }
  auto size = verified_size(local, compression, static_cast<uint64_t>(file.size));
  if (!size) return "copy of " + file.path + " failed its check: " + size.error().message;
  if (file.size >= 0 && *size != static_cast<uint64_t>(file.size))
    return "copy of " + file.path + " holds " + std::to_string(*size) + " bytes, the node listed " +
           std::to_string(file.size) + " (changed while it was copied?)";
  raw = *size;
  return "";
}

// The collection's state while copies run, under one mutex: each copy's end as
// copy_batch reports it, and the progress lines, from a watcher thread of its own.
class CopyProgress {
 public:
  CopyProgress(std::vector<NodeCopy>& copies, const CopyJobs& plan, size_t nodes, const ProgressFn& progress,
               Clock::time_point started, fs::file_time_type copy_start)
      : copies_(copies), plan_(plan), nodes_(nodes), progress_(progress), started_(started), copy_start_(copy_start),
        job_ended_(plan.jobs.size(), false) {}
  // Stopped and joined however copy_batch ends: a thread left joinable would end the
  // process if an exception passed through here.
  ~CopyProgress() {
    if (!watcher_.joinable()) return;
    {
      std::lock_guard lock(mutex_);
      copied_ = true;
    }
    wake_.notify_all();
    watcher_.join();
  }

  // A node still copying gets a line every `every`, with the bytes of the file it is
  // writing now: one large trace may take minutes.
  void start_watcher(std::chrono::milliseconds every) {
    watcher_ = std::thread([this, every] {
      std::unique_lock lock(mutex_);
      while (!wake_.wait_for(lock, every, [&] { return copied_; })) report_still_copying(every);
    });
  }

  // copy_batch's callback: checks job j's copy and files it under its node.
  bool done(size_t j, const Result<cluster::StreamResult>& r) {
    const JobOf& job = plan_.owners[j];
    const FreshFile& file = job.node->files[job.file];
    const fs::path& local = plan_.jobs[j].local_path;
    uint64_t raw = 0;
    const std::string error = copy_error(job.node->host, file, local, job.compression, r, raw);
    if (!error.empty()) {
      std::error_code ignored;
      fs::remove(local, ignored);  // a partial or damaged copy is never left to be analysed
    }
    std::lock_guard lock(mutex_);
    job_ended_[j] = true;
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
    if (last) ++finished_;
    // Past a few nodes a line a quarter, and every node that failed (progress_pace.h).
    if (progress_ && last && (!error.empty() || progress_line_due(finished_, nodes_))) {
      progress_(fmt::format("[collect] {}/{} nodes: {}{}; elapsed {:.1f} s", finished_, nodes_, node_line(node),
                            error.empty() ? "" : ", stopped by a failure", since(started_)));
    }
    return error.empty();
  }

 private:
  // `partial`: bytes of the files being written now.
  std::string node_line(const NodeCopy& node, uint64_t partial = 0) const {
    double seconds = since(node.started);
    uint64_t stored = node.stored + partial;
    return fmt::format("{} {}/{} file(s), {:.1f} MB in {:.1f} s ({:.1f} MB/s); {:.1f} MB of traces ({:.1f} MB/s, {})",
                       node.host, node.fetched, node.files.size(), stored / 1e6, seconds,
                       seconds > 0 ? stored / 1e6 / seconds : 0.0, node.raw / 1e6,
                       seconds > 0 ? node.raw / 1e6 / seconds : 0.0, compression_name(node.compression));
  }

  // The bytes written so far of the node's copies still running (under the mutex).
  uint64_t partial_bytes(const NodeCopy& node) const {
    uint64_t partial = 0;
    for (size_t j = node.first_job; j < node.first_job + node.files.size(); ++j) {
      if (job_ended_[j]) continue;
      // Not started yet: no file, or one left by an earlier collection (older).
      std::error_code ec;
      const fs::path& local = plan_.jobs[j].local_path;
      const uintmax_t size = fs::file_size(local, ec);
      if (!ec && fs::last_write_time(local, ec) >= copy_start_ && !ec) partial += size;
    }
    return partial;
  }

  // Under the mutex.
  void report_still_copying(std::chrono::milliseconds every) {
    for (auto& node : copies_) {
      if (node.reported || !node.error.empty()) continue;
      if (Clock::now() - node.last_line < every) continue;
      const uint64_t partial = partial_bytes(node);
      node.last_line = Clock::now();
      progress_(fmt::format("[collect] still copying: {}; elapsed {:.1f} s", node_line(node, partial), since(started_)));
    }
  }

  std::vector<NodeCopy>& copies_;
  const CopyJobs& plan_;
  const size_t nodes_;
  const ProgressFn& progress_;
  const Clock::time_point started_;
  const fs::file_time_type copy_start_;  // a copy being written is newer than this
  std::mutex mutex_;
  size_t finished_ = 0;          // nodes done (a line each, or a quarter's: progress_pace.h)
  std::vector<bool> job_ended_;  // guarded by mutex_
  std::condition_variable wake_;
  bool copied_ = false;
  std::thread watcher_;
};

}  // namespace

// Traces are most of the bytes and compress ~15x; a .gz or a log goes as it is.
Compression copy_compression(const NodeCopy& node, size_t f) {
  return node.files[f].path.ends_with(".json") ? node.compression : Compression::kNone;
}

fs::path copy_destination(const NodeCopy& node, size_t f) {
  return node.dests[f].string() + compression_suffix(copy_compression(node, f));
}

void copy_all(NodeExec& exec, std::vector<NodeCopy>& copies, size_t nodes, const ProgressFn& progress,
              std::chrono::milliseconds progress_every, std::vector<std::string>& notes) {
  const auto started = Clock::now();
  // A copy being written is newer than this (file times are coarse: a second's margin).
  const auto copy_start = fs::file_time_type::clock::now() - std::chrono::seconds(1);
  choose_compression(exec, copies, notes);
  const CopyJobs plan = plan_jobs(exec, copies, started);
  if (!plan.jobs.empty()) {
    CopyProgress tracker(copies, plan, nodes, progress, started, copy_start);
    if (progress) tracker.start_watcher(progress_every);
    exec.transport().copy_batch(plan.jobs, kNodesAtOnce, kStreamsPerNode,
                                std::chrono::seconds(exec.variant().timeout_seconds),
                                [&](size_t j, const Result<cluster::StreamResult>& r) { return tracker.done(j, r); });
  }
  uint64_t stored = 0, raw = 0;
  for (const auto& node : copies) stored += node.stored, raw += node.raw;
  if (raw > 0 && stored < raw)
    notes.push_back(fmt::format("{:.1f} MB of traces collected as {:.1f} MB, compressed on the nodes", raw / 1e6,
                                stored / 1e6));
}

}  // namespace aorta::job
