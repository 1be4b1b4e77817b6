// test_launch_container: prepares each node (owner ids, render group, the private
// working folder, Aorta in place), takes the node's lock and starts the containers.
#include <algorithm>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/checkout_lock.h"
#include "job/container.h"
#include "job/workdir.h"
#include "stages/node_checks.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

using std::chrono::seconds;

bool numeric(const std::string& s) { return !s.empty() && s.find_first_not_of("0123456789") == std::string::npos; }

// Owner ids are restored on the repository at teardown (containers run as root);
// render gids let the container user open the GPU devices. Returns the groups to add.
std::vector<std::string> record_owners_and_groups(StageContext& ctx, StageResult& out) {
  const auto& v = ctx.exec.variant();
  auto ids = ctx.exec.on_hosts("id -u && id -g && (getent group render | cut -d: -f3 || true)", seconds(60));
  std::vector<std::string> groups = {"video"};
  for (const auto& g : v.container.args.group_add)
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  for (const auto& r : ids) {
    if (!r.result.ok() || r.result->exit_code != 0) continue;
    std::istringstream lines(r.result->output);
    std::string uid, gid, render;
    std::getline(lines, uid);
    std::getline(lines, gid);
    std::getline(lines, render);
    // Digits only: teardown hands the repository back with this as chown's argument,
    // and a node's shell may print a banner before id's output.
    if (numeric(uid) && numeric(gid)) ctx.state.host_owner[r.host] = uid + ":" + gid;
    if (numeric(render) && std::find(groups.begin(), groups.end(), render) == groups.end()) groups.push_back(render);
  }
  require_all(ids, "prepare hosts", out);
  return groups;
}

// The working folder is created private (0700) and checked before anything in it
// is used: an existing checkout is trusted as it is, so whoever could have placed
// it there would run their scripts as this user (issue 14). Then Aorta is cloned
// when asked and its entry points checked.
void prepare_aorta(StageContext& ctx, StageResult& out) {
  auto& exec = ctx.exec;
  const auto& v = exec.variant();
  std::string repo = shell_quote(v.aorta_path);
  std::string parent = std::filesystem::path(v.aorta_path).parent_path().string();
  auto created = exec.on_hosts(job::private_mkdir_command(v.aorta_auto_clone ? parent : v.aorta_path), seconds(60));
  require_all(created, v.aorta_auto_clone ? "create the folder of aorta_path" : "create aorta_path", out);
  if (out.failed()) return;
  if (Status s = job::check_workdir(exec); !s) {
    out.failures.push_back(s.error().message);
    return;
  }
  if (v.aorta_auto_clone) {
    // Clone beside the target and rename into place: on storage that several nodes
    // share, one clone wins and the others find it there.
    std::string marker = shell_quote(v.aorta_path + "/" + v.base_config);
    std::string prepare = "umask 077 && if ! test -f " + marker + "; then tmp=" + repo +
                          ".clone.$(hostname).$$ && rm -rf \"$tmp\" && " + "git clone -q -- " +
                          shell_quote(v.aorta_clone_url) + " \"$tmp\" && " + "{ mv -T \"$tmp\" " + repo +
                          " 2>/dev/null || { rm -rf \"$tmp\"; test -f " + marker + "; }; }; fi";
    require_all(exec.on_hosts(prepare, seconds(600)), "clone Aorta", out);
    if (out.failed()) {
      out.failures.push_back("If the nodes cannot reach " + v.aorta_clone_url +
                             " (compute nodes often cannot), clone Aorta from a login node into " + v.aorta_path +
                             " and set aorta_auto_clone to false.");
      return;
    }
  }
  auto entries = required_entry_points(v, exec.hosts().size());
  auto checked = exec.on_hosts(entry_check(v.aorta_path, entries), seconds(600));
  if (!cluster::all_succeeded(checked))
    out.failures.push_back("Aorta entry points missing under aorta_path " + v.aorta_path + " (need " +
                           fmt::format("{}", fmt::join(entries, ", ")) + "): " + cluster::describe_failures(checked) +
                           ". Place Aorta there on each node, or set aorta_auto_clone and aorta_clone_url.");
}

StageResult launch_container(StageContext& ctx) {
  StageResult out;
  auto& exec = ctx.exec;
  auto groups = record_owners_and_groups(ctx, out);
  if (out.failed()) return out;
  prepare_aorta(ctx, out);
  if (out.failed()) return out;
  // One run at a time per node and aorta_path: before the container, whose name
  // another run of the same user would share (and replace).
  if (Status s = job::acquire_workdir_locks(exec, ctx.state, out.log); !s) {
    out.failures.push_back(s.error().message);
    return out;
  }
  keep_last_wills(ctx, out);
  if (Status s = job::launch_containers(exec, groups); !s) {
    out.failures.push_back(s.error().message);
    return out;
  }
  ctx.state.container_started = true;
  keep_last_wills(ctx, out);
  if (Status s = job::verify_containers(exec); !s) out.failures.push_back(s.error().message);
  if (exec.variant().container.runtime == config::RuntimeKind::kNone)
    out.log.push_back("container runtime none: commands run directly on each node");
  return out;
}

}  // namespace

extern const StageSpec kLaunchContainer = {
    .test_name = "test_launch_container",
    .label = "container_launch",
    .body = launch_container,
    .starts_work = true,
};

}  // namespace aorta::stages
