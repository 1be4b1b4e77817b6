// test_build_rccl: the config's RCCL build script on every node, as a phase that
// is stopped whatever happens (skip_rccl_build skips it).
#include "common/shell_quote.h"
#include "stages/node_checks.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

StageResult build_rccl(StageContext& ctx) {
  StageResult out;
  const auto& v = ctx.exec.variant();
  if (v.skip_rccl_build) {
    out.skip_reason = "skip_rccl_build=true";
    return out;
  }
  std::string cmd = "bash " + shell_quote(v.node_repo_path() + "/" + v.build_script);
  std::vector<std::string> commands(ctx.exec.hosts().size(), cmd);
  Status s = job::start_phase(ctx.exec, ctx.state, "rccl", commands, job::Rendezvous{});
  keep_last_wills(ctx, out);
  if (s) s = job::wait_for_phase(ctx.exec, ctx.state, "rccl", std::chrono::seconds(v.timeout_seconds), ctx.log);
  Status stopped = job::stop_phase(ctx.exec, ctx.state, "rccl");
  if (!stopped) out.log.push_back("Failed to stop RCCL build process groups: " + stopped.error().message);
  if (!s) out.failures.push_back(s.error().message);
  return out;
}

}  // namespace

extern const StageSpec kBuildRccl = {
    .test_name = "test_build_rccl",
    .label = "rccl_build",
    .body = build_rccl,
    .starts_work = true,
};

}  // namespace aorta::stages
