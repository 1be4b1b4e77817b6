#include "job/container.h"

#include "common/shell_quote.h"

namespace aorta::job {
namespace {

bool uses_docker(const NodeExec& exec) { return exec.variant().container.runtime == config::RuntimeKind::kDocker; }

}  // namespace

std::string docker_run_command(const NodeExec& exec, const std::vector<std::string>& groups) {
  const auto& v = exec.variant();
  const auto& a = v.container.args;
  std::vector<std::string> argv = {"docker", "run", "-d", "--name", exec.container_name()};
  argv.insert(argv.end(), {"--network", a.network.empty() ? "host" : a.network});
  argv.insert(argv.end(), {"--ipc", a.ipc.empty() ? "host" : a.ipc});
  if (a.privileged) argv.push_back("--privileged");
  if (!a.user.empty()) argv.insert(argv.end(), {"--user", a.user});
  // Engines refuse a shm size for the host's IPC namespace, where it means nothing.
  if (!a.shm_size.empty() && a.ipc != "host") argv.insert(argv.end(), {"--shm-size", a.shm_size});
  for (const auto& vol : a.volumes) argv.insert(argv.end(), {"-v", vol});
  for (const auto& dev : a.devices) argv.insert(argv.end(), {"--device", dev});
  for (const auto& cap : a.cap_add) argv.insert(argv.end(), {"--cap-add", cap});
  for (const auto& opt : a.security_opt) argv.insert(argv.end(), {"--security-opt", opt});
  for (const auto& g : groups) argv.insert(argv.end(), {"--group-add", g});
  for (const auto& u : a.ulimit) argv.insert(argv.end(), {"--ulimit", u});
  for (const auto& [k, val] : a.env) argv.insert(argv.end(), {"-e", k + "=" + val});
  for (const auto& [k, val] : v.container.env) argv.insert(argv.end(), {"-e", k + "=" + val});
  argv.insert(argv.end(), {v.container.image, "sleep", "infinity"});
  return shell_join(argv);
}

Status launch_containers(NodeExec& exec, const std::vector<std::string>& groups) {
  if (!uses_docker(exec) || exec.variant().container.lifetime == "no_launch") return ok_status();
  std::string name = shell_quote(exec.container_name());
  auto removed = exec.on_hosts("docker rm -f " + name + " >/dev/null 2>&1 || true", std::chrono::seconds(30));
  (void)removed;
  auto started = exec.on_hosts(docker_run_command(exec, groups), std::chrono::seconds(120));
  if (!cluster::all_succeeded(started)) {
    exec.on_hosts("docker rm -f " + name + " >/dev/null 2>&1 || true", std::chrono::seconds(30));
    return Error{ErrorCode::kCommandFailed,
                 "Aorta container setup failed for image '" + exec.variant().container.image +
                     "': " + cluster::describe_failures(started),
                 ""};
  }
  return ok_status();
}

Status verify_containers(NodeExec& exec) {
  if (!uses_docker(exec)) return ok_status();
  auto results = exec.on_hosts("docker inspect -f '{{.State.Running}}' " + shell_quote(exec.container_name()),
                               std::chrono::seconds(60));
  std::string missing;
  for (const auto& r : results)
    if (!r.result.ok() || r.result->exit_code != 0 || r.result->output.find("true") == std::string::npos)
      missing += (missing.empty() ? "" : ", ") + r.host;
  if (!missing.empty())
    return Error{ErrorCode::kCommandFailed,
                 "Aorta container " + exec.container_name() + " is not running on every node (not on: " + missing + ")", ""};
  return ok_status();
}

Status remove_containers(NodeExec& exec) {
  if (!uses_docker(exec) || exec.variant().container.lifetime != "per_run") return ok_status();
  auto results = exec.on_hosts("docker rm -f " + shell_quote(exec.container_name()), std::chrono::seconds(60));
  if (!cluster::all_succeeded(results))
    return Error{ErrorCode::kCommandFailed, "Aorta container teardown failed: " + cluster::describe_failures(results), ""};
  return ok_status();
}

}  // namespace aorta::job
