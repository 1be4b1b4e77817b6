#include "job/last_will.h"

#include "common/shell_quote.h"
#include "job/phase.h"
#include "job/workdir.h"

namespace aorta::job {

std::string last_will_command(const NodeExec& exec, const RunState& state, size_t node) {
  const auto& v = exec.variant();
  const std::string& host = exec.hosts().at(node);
  const bool docker = v.container.runtime != config::RuntimeKind::kNone && exec.docker_probed();
  std::string will;
  auto add = [&](const std::string& part) { will += (will.empty() ? "" : "\n") + part + " || true"; };
  // The training first, inside its container; a per-run container is then removed
  // whole, which ends anything left in it.
  for (const auto& [label, pids] : state.phase_pids)
    if (pids.count(host)) add(exec.wrap(host, "{ " + stop_phase_command(exec, state, node, label) + "; }"));
  if (docker && v.container.lifetime == "per_run")
    add(exec.docker(host) + " rm -f " + shell_quote(exec.container_name()) + " >/dev/null 2>&1");
  if (auto lock = state.workdir_locks.find(host); lock != state.workdir_locks.end())
    add("{ " + release_lock_command(v, host, state, lock->second) + "; }");
  return will;
}

Status update_last_wills(NodeExec& exec, const RunState& state) {
  for (size_t i = 0; i < exec.hosts().size(); ++i)
    if (Status s = exec.transport().set_last_will(exec.hosts()[i], last_will_command(exec, state, i)); !s) return s;
  return ok_status();
}

}  // namespace aorta::job
