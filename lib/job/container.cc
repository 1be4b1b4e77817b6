#include "job/container.h"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "common/shell_quote.h"
#include "job/registry_login.h"

namespace aorta::job {
namespace {

using std::chrono::seconds;

bool uses_docker(const NodeExec& exec) { return exec.variant().container.runtime == config::RuntimeKind::kDocker; }

bool ran_ok(const HostResult& r) { return r.result.ok() && r.result->exit_code == 0; }

// The name part of "name=value" (or "name:value" with sep ':').
std::string name_of(const std::string& s, char sep = '=') { return s.substr(0, s.find(sep)); }

// The container-side target of a -v spec: host:target[:options].
std::string volume_target(const std::string& vol) {
  auto first = vol.find(':');
  if (first == std::string::npos) return vol;
  auto rest = vol.substr(first + 1);
  return rest.substr(0, rest.find(':'));
}

// defaults, then configured; a configured entry whose name matches a default's replaces it.
std::vector<std::string> merged(std::vector<std::string> defaults, const std::vector<std::string>& configured,
                                char sep) {
  for (const auto& c : configured) {
    auto same = [&](const std::string& d) { return d == c || (sep && name_of(d, sep) == name_of(c, sep)); };
    defaults.erase(std::remove_if(defaults.begin(), defaults.end(), same), defaults.end());
  }
  defaults.insert(defaults.end(), configured.begin(), configured.end());
  return defaults;
}

std::string joined(const std::vector<std::string>& hosts) { return "[" + fmt::format("{}", fmt::join(hosts, ", ")) + "]"; }

std::vector<std::string> each_host(NodeExec& exec, const std::string& after_docker) {
  std::vector<std::string> cmds;
  for (const auto& h : exec.hosts()) cmds.push_back(exec.docker(h) + " " + after_docker);
  return cmds;
}

std::vector<HostResult> run_each(NodeExec& exec, const std::vector<std::string>& cmds, seconds timeout) {
  return cluster::run_on_hosts(exec.transport(), exec.hosts(), cmds, timeout);
}

Error setup_error(NodeExec& exec, const std::string& reason) {
  return Error{ErrorCode::kCommandFailed,
               "Aorta container setup failed for image '" + exec.variant().container.image + "': " + reason, ""};
}

// Where a node lacks the image: log in (with a registry configured, as CVS does before
// a pull), then pull. One round trip; a failed login is told from a failed pull.
Status pull_where_missing(NodeExec& exec) {
  const auto& registry = exec.variant().container.args.registry;
  const std::string image = shell_quote(exec.variant().container.image);
  std::vector<std::string> cmds;
  for (const auto& h : exec.hosts()) {
    std::string login = registry.configured() ? registry_login_command(registry, exec.docker(h)) + " && " : "";
    cmds.push_back(exec.docker(h) + " image inspect " + image + " >/dev/null 2>&1 || { " + login + exec.docker(h) +
                   " pull " + image + "; }");
  }
  auto pulled = run_each(exec, cmds, seconds(600));
  std::vector<cluster::HostResult> no_login;
  for (const auto& r : pulled)
    if (login_failed(r)) no_login.push_back(r);
  if (!no_login.empty()) return setup_error(exec, login_failure(registry, no_login));
  if (!cluster::all_succeeded(pulled)) {
    std::vector<std::string> failed;
    for (const auto& r : pulled)
      if (!ran_ok(r)) failed.push_back(r.host);
    return setup_error(exec, "docker pull failed on " + joined(failed) +
                                 " (check the image name, that those nodes can reach the registry and are "
                                 "logged in to it, or load the image there): " +
                                 cluster::describe_failures(pulled));
  }
  return ok_status();
}

// Starts the container on every host: pull where the image is missing, then run.
Status start_containers(NodeExec& exec, const std::vector<std::string>& groups) {
  if (Status s = pull_where_missing(exec); !s) return s;
  std::vector<std::string> runs;
  for (const auto& h : exec.hosts()) {
    LaunchSpec spec;
    spec.docker = exec.docker(h);
    spec.groups = groups;
    spec.ssh_dir = "/home/" + exec.cluster().username + "/.ssh";
    runs.push_back(docker_run_command(exec.variant(), exec.container_name(), spec));
  }
  auto started = run_each(exec, runs, seconds(120));
  if (!cluster::all_succeeded(started)) {
    // Only the ones this call started: rm without -f never stops a container that was running.
    std::vector<std::string> undo;
    for (const auto& r : started)
      undo.push_back(ran_ok(r) ? exec.docker(r.host) + " rm -f " + shell_quote(exec.container_name()) +
                                     " >/dev/null 2>&1 || true"
                               : "true");
    run_each(exec, undo, seconds(30));
    return setup_error(exec, cluster::describe_failures(started));
  }
  return ok_status();
}

// host -> whether the container runs there (false also when asking failed).
std::vector<std::pair<std::string, bool>> running(NodeExec& exec) {
  auto results =
      run_each(exec, each_host(exec, "inspect -f '{{.State.Running}}' " + shell_quote(exec.container_name())), seconds(60));
  std::vector<std::pair<std::string, bool>> out;
  for (const auto& r : results)
    out.emplace_back(r.host, ran_ok(r) && r.result->output.find("true") != std::string::npos);
  return out;
}

}  // namespace

std::string docker_run_command(const config::Variant& v, const std::string& name, const LaunchSpec& spec) {
  const auto& a = v.container.args;
  // Devices and the .ssh mount the node may lack are added by the shell on the node
  // into "$@", each one quoted argument; configured devices are always passed.
  std::string prelude = "set --; for d in";
  for (const auto& d : spec.default_devices) {
    // A glob stays unquoted so the node expands it; the fixed paths are quoted.
    prelude += " " + (d.find('*') != std::string::npos ? d : shell_quote(d));
  }
  prelude += "; do case \"$d\" in";
  std::vector<std::string> configured_hosts;
  for (const auto& dev : a.devices) configured_hosts.push_back(shell_quote(name_of(dev, ':')));
  if (!configured_hosts.empty()) prelude += " " + fmt::format("{}", fmt::join(configured_hosts, "|")) + ") continue;;";
  prelude += " esac; if [ -e \"$d\" ]; then set -- \"$@\" --device \"$d:$d\"; fi; done; ";
  bool ssh_configured = std::any_of(a.volumes.begin(), a.volumes.end(),
                                    [](const std::string& vol) { return volume_target(vol) == "/host_ssh"; });
  if (!spec.ssh_dir.empty() && !ssh_configured)
    prelude += "if [ -d " + shell_quote(spec.ssh_dir) + " ]; then set -- \"$@\" -v " +
               shell_quote(spec.ssh_dir + ":/host_ssh") + "; fi; ";

  std::vector<std::string> argv = {"run", "-d", "--name", name};
  argv.insert(argv.end(), {"--network", a.network.empty() ? "host" : a.network});
  argv.insert(argv.end(), {"--ipc", a.ipc.empty() ? "host" : a.ipc});
  if (a.privileged) argv.push_back("--privileged");
  if (!a.user.empty()) argv.insert(argv.end(), {"--user", a.user});
  // Engines refuse a shm size for the host's IPC namespace, where it means nothing.
  if (!a.shm_size.empty() && a.ipc != "host") argv.insert(argv.end(), {"--shm-size", a.shm_size});
  for (const auto& vol : a.volumes) argv.insert(argv.end(), {"-v", vol});
  for (const auto& dev : a.devices) argv.insert(argv.end(), {"--device", dev});
  for (const auto& cap : merged({"SYS_PTRACE", "IPC_LOCK", "SYS_ADMIN"}, a.cap_add, 0))
    argv.insert(argv.end(), {"--cap-add", cap});
  for (const auto& opt : merged({"seccomp=unconfined", "apparmor=unconfined"}, a.security_opt, '='))
    argv.insert(argv.end(), {"--security-opt", opt});
  for (const auto& g : spec.groups) argv.insert(argv.end(), {"--group-add", g});
  for (const auto& u : merged({"memlock=-1"}, a.ulimit, '=')) argv.insert(argv.end(), {"--ulimit", u});
  // GPUS and MULTINODE as the original sets them, then the configured env; a later
  // value of the same key replaces the earlier in place.
  config::KeyValues env = {{"GPUS", "8"}, {"MULTINODE", "true"}};
  for (const auto* src : {&a.env, &v.container.env})
    for (const auto& entry : *src) {
      // (Not a structured binding: clang 14 cannot capture one in the lambda.)
      const std::string& key = entry.first;
      auto it = std::find_if(env.begin(), env.end(), [&](const auto& kv) { return kv.first == key; });
      if (it == env.end())
        env.emplace_back(key, entry.second);
      else
        it->second = entry.second;
    }
  for (const auto& [k, val] : env) argv.insert(argv.end(), {"-e", k + "=" + val});
  std::vector<std::string> tail = {v.container.image, "sleep", "infinity"};
  return prelude + spec.docker + " " + shell_join(argv) + " \"$@\" " + shell_join(tail);
}

Status probe_docker_access(NodeExec& exec) {
  if (!uses_docker(exec) || exec.docker_probed()) return ok_status();
  auto results = exec.on_hosts(
      "if docker ps -q >/dev/null 2>&1; then echo AORTA_DOCKER=direct; "
      "elif sudo -n docker ps -q >/dev/null 2>&1; then echo AORTA_DOCKER=sudo; "
      "else echo AORTA_DOCKER=none; docker ps -q 2>&1 | tail -n 3; fi",
      seconds(60));
  std::vector<std::string> none;
  std::string detail;
  for (const auto& r : results) {
    std::string out = r.result.ok() ? r.result->output : r.result.error().message;
    if (ran_ok(r) && out.find("AORTA_DOCKER=direct") != std::string::npos) {
      exec.set_docker(r.host, "docker");
    } else if (ran_ok(r) && out.find("AORTA_DOCKER=sudo") != std::string::npos) {
      exec.set_docker(r.host, "sudo -n docker");
    } else {
      none.push_back(r.host);
      detail += (detail.empty() ? "" : "; ") + r.host + ": " + out.substr(out.size() > 500 ? out.size() - 500 : 0);
    }
  }
  if (!none.empty())
    return setup_error(exec, "docker is not usable on " + joined(none) + " as " + exec.cluster().username +
                                 ", nor with sudo -n (add the user to the docker group, or allow it passwordless "
                                 "sudo for docker): " + detail);
  return ok_status();
}

Status launch_containers(NodeExec& exec, const std::vector<std::string>& groups) {
  if (!uses_docker(exec)) return ok_status();
  if (Status s = probe_docker_access(exec); !s) return s;
  const std::string& lifetime = exec.variant().container.lifetime;
  if (lifetime == "no_launch") return ok_status();
  std::string name = shell_quote(exec.container_name());
  if (lifetime == "persistent") {
    std::vector<std::string> on, off;
    for (const auto& [host, up] : running(exec)) (up ? on : off).push_back(host);
    if (off.empty()) return ok_status();  // attach: it runs everywhere
    if (!on.empty())
      return setup_error(exec, "container " + exec.container_name() + " (lifetime persistent) runs on " + joined(on) +
                                   " but not on " + joined(off) +
                                   ": start it on those nodes, stop it everywhere so the suite starts it, or use "
                                   "lifetime per_run");
    // Runs nowhere: start it (and keep it). A stopped one of that name is replaced;
    // rm without -f never removes a running one.
    run_each(exec, each_host(exec, "rm " + name + " >/dev/null 2>&1 || true"), seconds(30));
    return start_containers(exec, groups);
  }
  run_each(exec, each_host(exec, "rm -f " + name + " >/dev/null 2>&1 || true"), seconds(30));
  return start_containers(exec, groups);
}

Status verify_containers(NodeExec& exec) {
  if (!uses_docker(exec)) return ok_status();
  if (Status s = probe_docker_access(exec); !s) return s;
  std::vector<std::string> missing;
  for (const auto& [host, up] : running(exec))
    if (!up) missing.push_back(host);
  if (!missing.empty())
    return Error{ErrorCode::kCommandFailed,
                 "Aorta container " + exec.container_name() + " is not running on every node (not on: " +
                     fmt::format("{}", fmt::join(missing, ", ")) + ")",
                 ""};
  return ok_status();
}

Status remove_containers(NodeExec& exec, const std::vector<std::string>& hosts,
                         std::vector<std::string>* failed_hosts) {
  if (!uses_docker(exec) || exec.variant().container.lifetime != "per_run") return ok_status();
  const auto& targets = hosts.empty() ? exec.hosts() : hosts;
  std::vector<std::string> cmds;
  for (const auto& h : targets) cmds.push_back(exec.docker(h) + " rm -f " + shell_quote(exec.container_name()));
  auto results = cluster::run_on_hosts(exec.transport(), targets, cmds, seconds(60));
  if (failed_hosts)
    for (const auto& r : results)
      if (!ran_ok(r)) failed_hosts->push_back(r.host);
  if (!cluster::all_succeeded(results))
    return Error{ErrorCode::kCommandFailed, "Aorta container teardown failed: " + cluster::describe_failures(results), ""};
  return ok_status();
}

}  // namespace aorta::job
