// test_setup_rdma (distributed only): torchrun and every configured InfiniBand
// device are there in every container.
#include "common/shell_quote.h"
#include "stages/node_checks.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

StageResult setup_rdma(StageContext& ctx) {
  StageResult out;
  std::string cmd = "command -v torchrun";
  for (const auto& dev : ctx.exec.variant().container.args.devices) {
    std::string inside = dev.find(':') == std::string::npos ? dev : dev.substr(dev.find(':') + 1);
    inside = inside.substr(0, inside.find(':'));
    if (inside.rfind("/dev/infiniband/", 0) == 0) cmd += " && test -e " + shell_quote(inside);
  }
  require_all(ctx.exec.in_containers(cmd, std::chrono::seconds(60)), "torchrun and RDMA devices", out);
  return out;
}

}  // namespace

extern const StageSpec kSetupRdma = {
    .test_name = "test_setup_rdma",
    .label = "rdma_setup",
    .body = setup_rdma,
    .starts_work = true,
};

}  // namespace aorta::stages
