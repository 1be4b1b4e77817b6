#include "cluster/transport.h"

#include <algorithm>
#include <future>
#include <map>
#include <mutex>
#include <thread>

namespace aorta::cluster {

std::vector<Result<CommandResult>> Transport::run_batch(const std::vector<std::string>& hosts,
                                                       const std::vector<std::string>& commands,
                                                       std::chrono::seconds timeout) {
  std::vector<std::future<Result<CommandResult>>> pending;
  pending.reserve(hosts.size());
  for (size_t i = 0; i < hosts.size(); ++i)
    pending.push_back(std::async(std::launch::async, [&, i] { return run(hosts[i], commands[i], timeout); }));
  std::vector<Result<CommandResult>> results;
  for (auto& p : pending) results.push_back(p.get());
  return results;
}

Error copy_over_limit(const std::string& host, const std::filesystem::path& local_path, uint64_t max_bytes) {
  return Error{ErrorCode::kIo,
               "the node sent more than the " + std::to_string(max_bytes) + " bytes " + local_path.filename().string() +
                   " may take; the copy was stopped there",
               host};
}

Error output_over_limit(const std::string& host) {
  return Error{ErrorCode::kIo,
               "the command printed more than " + std::to_string(kCommandOutputLimit >> 20) +
                   " MiB; it was stopped there (a node printing without end?)",
               host};
}

Status Transport::set_last_will(const std::string&, const std::string&) { return ok_status(); }

bool Transport::proves_gone(const Error&) const { return false; }

Result<StreamResult> Transport::stream(const std::string& host, const std::string&, const std::filesystem::path&,
                                       std::chrono::seconds, uint64_t) {
  return Error{ErrorCode::kUnsupported, "the " + name() + " transport cannot stream a command's output", host};
}

std::vector<Status> Transport::upload_batch(const std::vector<UploadJob>& jobs, size_t, std::chrono::seconds) {
  std::vector<Status> results;
  for (const auto& job : jobs)
    results.push_back(Error{ErrorCode::kUnsupported, "the " + name() + " transport cannot place files on a node", job.host});
  return results;
}

Result<StreamResult> copy_one(Transport& transport, const CopyJob& job, std::chrono::seconds timeout) {
  if (!job.command.empty()) return transport.stream(job.host, job.command, job.local_path, timeout, job.max_bytes);
  return downloaded(transport.download(job.host, job.remote_path, job.local_path, job.max_bytes), job.local_path);
}

Result<StreamResult> downloaded(const Status& download, const std::filesystem::path& local_path) {
  if (!download) return download.error();
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(local_path, ec);
  return StreamResult{0, ec ? 0 : static_cast<uint64_t>(size), ""};
}

CopyQueue::CopyQueue(const std::vector<CopyJob>& jobs, size_t streams_per_host) {
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < jobs.size(); ++i) {
    auto [it, added] = index.try_emplace(jobs[i].host, hosts_.size());
    if (added) hosts_.push_back({jobs[i].host, {}, 0});
    hosts_[it->second].jobs.push_back(i);
  }
  for (size_t h = 0; h < hosts_.size(); ++h)
    for (size_t s = 0; s < std::min(std::max<size_t>(streams_per_host, 1), hosts_[h].jobs.size()); ++s)
      lanes_.push_back({h, s});
}

std::optional<size_t> CopyQueue::next_lane() {
  std::lock_guard lock(mutex_);
  if (lanes_taken_ == lanes_.size()) return std::nullopt;
  return lanes_taken_++;
}

std::optional<size_t> CopyQueue::next(size_t h) {
  std::lock_guard lock(mutex_);
  Host& host = hosts_[h];
  if (host.taken == host.jobs.size()) return std::nullopt;
  return host.jobs[host.taken++];
}

bool CopyQueue::has_next(size_t h) {
  std::lock_guard lock(mutex_);
  return hosts_[h].taken < hosts_[h].jobs.size();
}

void CopyQueue::stop(size_t h, std::vector<Result<StreamResult>>& results) {
  std::lock_guard lock(mutex_);
  Host& host = hosts_[h];
  for (; host.taken < host.jobs.size(); ++host.taken)
    results[host.jobs[host.taken]] = Error{ErrorCode::kIo, "not copied: an earlier file of this node failed", host.name};
}

std::vector<Result<StreamResult>> Transport::copy_batch(const std::vector<CopyJob>& jobs, size_t hosts_at_once,
                                                        size_t /*streams_per_host*/, std::chrono::seconds timeout,
                                                        const CopyDone& done) {
  std::vector<Result<StreamResult>> results(jobs.size(), Error{ErrorCode::kIo, "not run", ""});
  // One stream per host here, whatever is asked: local and srun jobs are children of
  // Boost.Process, and with several at once in one process a short child's exit was
  // seen only when another child ended (LocalTransport, measured): a host's streams
  // would wait on each other. Hosts still run at once, as before.
  CopyQueue queue(jobs, 1);
  // Each worker takes the next lane and copies its host's jobs until none is left.
  auto worker = [&] {
    while (auto l = queue.next_lane()) {
      const size_t host = queue.lanes()[*l].host;
      while (auto i = queue.next(host)) {
        results[*i] = copy_one(*this, jobs[*i], timeout);  // each slot is one worker's
        if (done && !done(*i, results[*i])) queue.stop(host, results);
      }
    }
  };
  const size_t workers = std::clamp<size_t>(hosts_at_once, 1, std::max<size_t>(queue.lanes().size(), 1));
  std::vector<std::thread> threads;
  for (size_t w = 0; w < workers; ++w) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  return results;
}

std::vector<HostResult> run_on_hosts(Transport& transport, const std::vector<std::string>& hosts,
                                     const std::vector<std::string>& commands, std::chrono::seconds timeout) {
  auto outcomes = transport.run_batch(hosts, commands, timeout);
  std::vector<HostResult> results;
  for (size_t i = 0; i < hosts.size(); ++i) results.push_back({hosts[i], std::move(outcomes[i])});
  return results;
}

std::vector<HostResult> run_everywhere(Transport& transport, const std::vector<std::string>& hosts,
                                       const std::string& command, std::chrono::seconds timeout) {
  return run_on_hosts(transport, hosts, std::vector<std::string>(hosts.size(), command), timeout);
}

bool all_succeeded(const std::vector<HostResult>& results) {
  for (const auto& r : results)
    if (!r.result.ok() || r.result->exit_code != 0) return false;
  return true;
}

std::string describe_failures(const std::vector<HostResult>& results, size_t tail) {
  std::string out;
  for (const auto& r : results) {
    std::string what;
    if (!r.result.ok()) {
      what = r.result.error().message;
    } else if (r.result->exit_code != 0) {
      const std::string& text = r.result->output;
      what = "exit " + std::to_string(r.result->exit_code) + ": " +
             (text.size() > tail ? "..." + text.substr(text.size() - tail) : text);
    } else {
      continue;
    }
    if (!out.empty()) out += "; ";
    out += r.host + ": " + what;
  }
  return out;
}

}  // namespace aorta::cluster
