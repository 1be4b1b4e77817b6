#include "job/node_exec.h"

#include "common/shell_quote.h"

namespace aorta::job {

NodeExec::NodeExec(cluster::Transport& transport, const config::Variant& variant, const config::Cluster& cluster)
    : transport_(transport), variant_(variant), cluster_(cluster) {
  for (const auto& node : cluster.nodes) hosts_.push_back(node.name);
}

std::string NodeExec::container_name() const {
  if (!variant_.container.name.empty()) return variant_.container.name;
  std::string image = variant_.container.image;
  for (char& c : image)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') c = '_';
  return cluster_.username + "_" + image;
}

const std::string& NodeExec::docker(const std::string& host) const {
  static const std::string plain = "docker";
  auto it = docker_.find(host);
  return it == docker_.end() ? plain : it->second;
}

std::string NodeExec::wrap(const std::string& host, const std::string& command) const {
  if (variant_.container.runtime == config::RuntimeKind::kNone) return command;
  return docker(host) + " exec " + shell_quote(container_name()) + " bash -c " + shell_quote(command);
}

std::vector<HostResult> NodeExec::on_hosts(const std::string& command, std::chrono::seconds timeout) {
  return cluster::run_everywhere(transport_, hosts_, command, timeout);
}

std::vector<HostResult> NodeExec::in_containers(const std::string& command, std::chrono::seconds timeout) {
  return in_containers_each(std::vector<std::string>(hosts_.size(), command), timeout);
}

std::vector<HostResult> NodeExec::in_containers_each(const std::vector<std::string>& commands,
                                                     std::chrono::seconds timeout) {
  std::vector<std::string> wrapped;
  for (size_t i = 0; i < commands.size() && i < hosts_.size(); ++i) wrapped.push_back(wrap(hosts_[i], commands[i]));
  return cluster::run_on_hosts(transport_, hosts_, wrapped, timeout);
}

HostResult NodeExec::in_container(size_t node, const std::string& command, std::chrono::seconds timeout) {
  const std::string& host = hosts_.at(node);
  return cluster::run_on_hosts(transport_, {host}, {wrap(host, command)}, timeout).front();
}

std::string NodeExec::host_path(const std::string& node_path) const {
  const std::string& mount = variant_.node_repo_path();
  if (node_path.rfind(mount, 0) == 0) return variant_.aorta_path + node_path.substr(mount.size());
  return node_path;
}

std::optional<std::string> marked_line(const std::string& output, const std::string& marker) {
  size_t at = output.rfind(marker);
  while (at != std::string::npos && at > 0 && output[at - 1] != '\n')
    at = output.rfind(marker, at - 1);
  if (at == std::string::npos) return std::nullopt;
  size_t begin = at + marker.size(), end = output.find('\n', begin);
  return output.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
}

}  // namespace aorta::job
