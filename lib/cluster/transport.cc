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

Result<StreamResult> Transport::stream(const std::string& host, const std::string&, const std::filesystem::path&,
                                       std::chrono::seconds) {
  return Error{ErrorCode::kUnsupported, "the " + name() + " transport cannot stream a command's output", host};
}

Result<StreamResult> copy_one(Transport& transport, const CopyJob& job, std::chrono::seconds timeout) {
  if (!job.command.empty()) return transport.stream(job.host, job.command, job.local_path, timeout);
  if (Status s = transport.download(job.host, job.remote_path, job.local_path); !s) return s.error();
  std::error_code ec;
  uintmax_t size = std::filesystem::file_size(job.local_path, ec);
  return StreamResult{0, ec ? 0 : static_cast<uint64_t>(size), ""};
}

std::vector<Result<StreamResult>> Transport::copy_batch(const std::vector<CopyJob>& jobs, size_t hosts_at_once,
                                                        std::chrono::seconds timeout, const CopyDone& done) {
  std::vector<Result<StreamResult>> results(jobs.size(), Error{ErrorCode::kIo, "not run", ""});
  std::map<std::string, std::vector<size_t>> by_host;
  for (size_t i = 0; i < jobs.size(); ++i) by_host[jobs[i].host].push_back(i);
  std::vector<const std::vector<size_t>*> queue;
  for (const auto& [host, indexes] : by_host) queue.push_back(&indexes);
  std::mutex mutex;
  size_t next = 0;
  // Each worker takes the next host and copies its files in order.
  auto worker = [&] {
    for (;;) {
      const std::vector<size_t>* indexes;
      {
        std::lock_guard lock(mutex);
        if (next == queue.size()) return;
        indexes = queue[next++];
      }
      for (size_t k = 0; k < indexes->size(); ++k) {
        size_t i = (*indexes)[k];
        results[i] = copy_one(*this, jobs[i], timeout);  // each slot is one worker's
        if (done && !done(i, results[i])) {
          for (size_t rest = k + 1; rest < indexes->size(); ++rest)
            results[(*indexes)[rest]] = Error{ErrorCode::kIo, "not copied: an earlier file of this node failed", jobs[i].host};
          break;
        }
      }
    }
  };
  size_t workers = std::clamp<size_t>(hosts_at_once, 1, std::max<size_t>(queue.size(), 1));
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
