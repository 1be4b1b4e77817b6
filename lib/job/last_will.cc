#include "job/last_will.h"

#include <openssl/evp.h>

#include "common/shell_quote.h"
#include "job/checkout_lock.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

std::string base64(const std::string& text) {
  std::string out(4 * ((text.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  out.resize(n > 0 ? static_cast<size_t>(n) : 0);
  return out;
}

}  // namespace

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
  std::vector<std::string> keep;
  for (size_t i = 0; i < exec.hosts().size(); ++i) {
    const std::string will = last_will_command(exec, state, i);
    if (Status s = exec.transport().set_last_will(exec.hosts()[i], will); !s) return s;
    // Beside the lock too, for a run that finds this one's lock after the suite was
    // killed outright (no agent to run the will): it runs this before it starts.
    const std::string file = last_will_file(exec.variant(), state.run_id, exec.hosts()[i]);
    // In base64: the will travels as data, so the command holds none of its shell text.
    // Its first line is the node's boot: after a reboot its process groups are gone and
    // their ids may be another's, so the file then ends nothing.
    keep.push_back(will.empty() ? "rm -f -- " + shell_quote(file)
                                : "umask 077 && { printf '[ \"$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)\" = "
                                  "%s ] || exit 0\\n' \"$(cat /proc/sys/kernel/random/boot_id)\" && printf %s " +
                                      base64(will + "\n") + " | base64 -d; } > " + shell_quote(file + ".tmp") +
                                      " && mv -f -- " + shell_quote(file + ".tmp") + " " + shell_quote(file));
  }
  auto kept = cluster::run_on_hosts(exec.transport(), exec.hosts(), keep, std::chrono::seconds(60));
  if (!cluster::all_succeeded(kept))
    return Error{ErrorCode::kCommandFailed, "could not keep the last will beside the aorta_path lock: " +
                                                cluster::describe_failures(kept), ""};
  return ok_status();
}

}  // namespace aorta::job
