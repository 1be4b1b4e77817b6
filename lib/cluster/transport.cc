#include "cluster/transport.h"

#include <future>

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
