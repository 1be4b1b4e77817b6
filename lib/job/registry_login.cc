#include "job/registry_login.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/shell_quote.h"

namespace aorta::job {
namespace {

std::string server_name(const config::Registry& r) { return r.server.empty() ? "the default registry (Docker Hub)" : r.server; }

// The file as the node's shell names it: "~/x" is the SSH user's home, as CVS's
// unquoted `cat FILE` reads it; every other character stays quoted.
std::string password_file_word(const std::string& file) {
  if (file == "~") return "\"$HOME\"";
  if (file.rfind("~/", 0) == 0) return "\"$HOME\"/" + shell_quote(file.substr(2));
  return shell_quote(file);
}

}  // namespace

std::string registry_login_command(const config::Registry& r, const std::string& docker) {
  const std::string file = password_file_word(r.password_file);
  std::string login = docker + " login --username " + shell_quote(r.username) + " --password-stdin";
  if (!r.server.empty()) login += " " + shell_quote(r.server);
  return "{ { test -r " + file + " || { echo \"cannot read password_file \"" + file + "\" on this node\" >&2; false; }; } && " +
         login + " < " + file + " || { echo " + kLoginFailedMarker + "; false; }; }";
}

bool login_failed(const cluster::HostResult& r) {
  return r.result.ok() && r.result->exit_code != 0 && r.result->output.find(kLoginFailedMarker) != std::string::npos;
}

std::string login_failure(const config::Registry& r, const std::vector<cluster::HostResult>& failed) {
  std::vector<std::string> hosts;
  std::vector<cluster::HostResult> said = failed;
  for (auto& h : said) {
    hosts.push_back(h.host);
    std::string& out = h.result->output;
    for (size_t at; (at = out.find(kLoginFailedMarker)) != std::string::npos;) out.erase(at, std::string(kLoginFailedMarker).size());
    out.erase(out.find_last_not_of(" \t\r\n") + 1);  // npos + 1 == 0: all blank
  }
  return fmt::format(
      "docker login to {} as {} failed on [{}] (check that password_file {} exists on those nodes, is readable by the "
      "SSH user and holds that user's password or token, and that the nodes reach the registry): {}",
      server_name(r), r.username, fmt::join(hosts, ", "), r.password_file, cluster::describe_failures(said));
}

}  // namespace aorta::job
