// test_clone_aorta: Aorta's entry points are there inside every container.
#include "stages/node_checks.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

StageResult clone_aorta(StageContext& ctx) {
  StageResult out;
  const auto& v = ctx.exec.variant();
  auto entries = required_entry_points(v, ctx.exec.hosts().size());
  auto checked = ctx.exec.in_containers(entry_check(v.node_repo_path(), entries), std::chrono::seconds(600));
  require_all(checked, "verify Aorta in the container", out);
  return out;
}

}  // namespace

extern const StageSpec kCloneAorta = {
    .test_name = "test_clone_aorta",
    .label = "clone",
    .body = clone_aorta,
    .starts_work = true,
};

}  // namespace aorta::stages
