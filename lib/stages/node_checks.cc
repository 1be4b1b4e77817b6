#include "stages/node_checks.h"

#include "common/shell_quote.h"
#include "job/last_will.h"
#include "job/launch.h"

namespace aorta::stages {

void require_all(const std::vector<cluster::HostResult>& results, const std::string& what, StageResult& out) {
  if (!cluster::all_succeeded(results))
    out.failures.push_back("Aorta command failed on [" + what + "]: " + cluster::describe_failures(results));
}

std::vector<std::string> required_entry_points(const config::Variant& v, size_t nodes) {
  std::vector<std::string> entries = {v.base_config};
  if (!v.skip_rccl_build) entries.push_back(v.build_script);
  entries.push_back(job::launch_mode(v, nodes) == job::LaunchMode::kScript ? v.experiment_script
                                                                            : v.multi_node.train_script);
  return entries;
}

std::string entry_check(const std::string& root, const std::vector<std::string>& entries) {
  std::string cmd;
  for (const auto& e : entries) cmd += (cmd.empty() ? "" : " && ") + ("test -f " + shell_quote(root + "/" + e));
  return cmd;
}

void keep_last_wills(StageContext& ctx, StageResult& out) {
  if (Status s = job::update_last_wills(ctx.exec, ctx.state); !s)
    out.log.push_back("could not give the nodes their last will (what they run if this process dies): " +
                      s.error().describe());
}

}  // namespace aorta::stages
