// test_analyze: the optional TraceLens and GEMM analyses on the head node, their
// reports brought home; a failure only warns (the raw traces remain).
#include <filesystem>
#include <tuple>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/analysis_reports.h"
#include "stages/stage.h"

namespace aorta::stages {
namespace {

using std::chrono::seconds;

// One tool's run in the head's container and the copy of its reports to
// analysis/<name>. Reports older than `floor` are an earlier run's.
void run_tool(StageContext& ctx, const std::string& name, const std::string& script, const std::string& output,
              const std::string& reports, double floor, StageResult& out) {
  const auto& v = ctx.exec.variant();
  const std::string& head = ctx.exec.hosts().front();
  const std::string failed = "Optional " + name + " failed; raw traces remain available: ";
  std::string cmd = "cd " + shell_quote(v.node_repo_path()) + " && " +
                    (name == "tracelens_analysis" ? "python3 -c 'import TraceLens' && " : "") + "bash " +
                    shell_quote(v.node_repo_path() + "/" + script) + " " + shell_quote(output);
  if (v.analysis.skip_if_exists) cmd = "test -d " + shell_quote(reports) + " || ( " + cmd + " )";
  std::vector<cluster::HostResult> r{ctx.exec.in_container(0, cmd, seconds(v.timeout_seconds))};
  if (!cluster::all_succeeded(r)) {
    out.log.push_back(failed + cluster::describe_failures(r, 500));
    return;
  }
  std::filesystem::path dest = ctx.state.output_root / "analysis" / name;
  std::error_code ec;
  std::filesystem::create_directories(dest.parent_path(), ec);
  auto fetched =
      job::fetch_report_folder(ctx.exec, 0, reports, floor, dest, ctx.state.output_root, seconds(v.timeout_seconds));
  if (!fetched) {
    out.log.push_back(failed + head + ": " + fetched.error().message);
    return;
  }
  ctx.state.artifacts[name] = dest;
  out.log.push_back(fmt::format("{}: {} report file(s), {:.1f} MB, from {}:{} in {}", name, fetched->files,
                                fetched->bytes / 1e6, head, reports, dest.string()));
  if (!fetched->older.empty())
    out.log.push_back(fmt::format("{}: skipped {} older report file(s) in {} (an earlier run's): {}{}", name,
                                  fetched->older.size(), reports,
                                  fmt::join(fetched->older.begin(),
                                            fetched->older.begin() + std::min<size_t>(fetched->older.size(), 3), ", "),
                                  fetched->older.size() > 3 ? ", ..." : ""));
}

StageResult analyze(StageContext& ctx) {
  StageResult out;
  const auto& v = ctx.exec.variant();
  if (!v.analysis.enable_tracelens && !v.analysis.enable_gemm_analysis) {
    out.skip_reason = "Optional TraceLens/GEMM analysis is disabled";
    return out;
  }
  const std::string& head = ctx.exec.hosts().front();
  auto trees = ctx.state.trace_trees.find(head);
  if (trees == ctx.state.trace_trees.end() || trees->second.empty()) {
    out.log.push_back("No head-node traces available for optional analysis");
    return out;
  }
  std::string tree = trees->second.front();
  // Trees are relative to the repository, wherever the workload wrote them.
  std::string output = v.node_repo_path() + "/" + std::filesystem::path(tree).parent_path().string();
  // Both tools write into this one folder (reference §1.9); each run's copy goes to
  // analysis/<tool>. Reports older than the head's trace floor are an earlier run's,
  // unless skip_if_exists asked to keep an earlier run's reports.
  std::string reports = output + "/tracelens_analysis";
  double floor = v.analysis.skip_if_exists || !ctx.state.trace_floor.count(head) ? 0 : ctx.state.trace_floor.at(head);
  for (auto [enabled, script, name] : {std::tuple{v.analysis.enable_tracelens, v.analysis.tracelens_script, "tracelens_analysis"},
                                       std::tuple{v.analysis.enable_gemm_analysis, v.analysis.gemm_script, "gemm_analysis"}})
    if (enabled) run_tool(ctx, name, script, output, reports, floor, out);
  return out;
}

}  // namespace

extern const StageSpec kAnalyze = {
    .test_name = "test_analyze",
    .label = "analysis",
    .body = analyze,
    .starts_work = true,
};

}  // namespace aorta::stages
