#include "stages/node_analysis.h"

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/collect.h"
#include "job/node_exec.h"
#include "job/node_package.h"
#include "result_json/rank_results_json.h"

namespace aorta::stages {
namespace {

namespace fs = std::filesystem;

bool inside(const fs::path& file, const fs::path& dir) {
  const fs::path rel = file.lexically_normal().lexically_relative(dir.lexically_normal());
  return !rel.empty() && *rel.begin() != "..";
}

// One node's work: its traces' node paths (what it reads) and their copies here.
struct NodeWork {
  std::string host;
  std::vector<std::pair<std::string, std::string>> files;
};

std::string self_path() {
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? std::string("aorta_suite") : self.string();
}

// The binary each of `hosts` runs: analysis.node_binary when set; over SSH the head's
// own package, placed on the node and checked by hash; else the head's own path (this
// machine, or an agent that is the suite itself).
std::vector<Result<std::string>> binaries_for(StageContext& ctx, const std::vector<std::string>& hosts,
                                              std::vector<std::string>& log) {
  const auto& v = ctx.exec.variant();
  const std::string fixed = node_binary(v);
  if (!v.analysis.node_binary.empty() || ctx.exec.transport().name() != "ssh")
    return std::vector<Result<std::string>>(hosts.size(), fixed);
  auto package = job::package_of(fixed);
  if (!package) {
    log.push_back(fmt::format("Suite package not placed on the nodes: {}; they run {}, the head's own path",
                              package.error().message, fixed));
    return std::vector<Result<std::string>>(hosts.size(), fixed);
  }
  auto placed = job::place_package(ctx.exec, hosts, *package, ctx.state.run_id);
  log.push_back(placed.summary);
  return std::move(placed.binaries);
}

std::string command_for(const std::string& binary, const NodeWork& work) {
  std::string command = shell_quote(binary) + " rank-results";
  for (const auto& [node_path, here] : work.files) command += " " + shell_quote(node_path);
  return command;
}

// Each node path as the copy here, in sources and texts: the reports read the same
// names whichever side analyzed. Longest first, so no path is rewritten inside another.
void name_copies(metrics::TraceSet& part, const NodeWork& work) {
  auto files = work.files;
  std::sort(files.begin(), files.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  auto rename = [&](std::string& text) {
    for (const auto& [node_path, here] : files)
      for (size_t at = text.find(node_path); at != std::string::npos; at = text.find(node_path, at + here.size()))
        text.replace(at, node_path.size(), here);
  };
  for (auto& r : part.ranks) rename(r.source);
  for (auto& w : part.warnings) rename(w);
  for (auto& e : part.errors) rename(e);
}

// The node's answer as its part of the set; a failure is the part's one error.
metrics::TraceSet read_part(const NodeWork& work, const cluster::HostResult& answer) {
  auto failed = [&](const std::string& why) {
    metrics::TraceSet part;
    part.files_found = work.files.size();
    part.errors.push_back(fmt::format("{}: node-side analysis of {} trace(s) failed: {}", work.host, work.files.size(), why));
    return part;
  };
  if (!answer.result.ok()) return failed(answer.result.error().describe());
  const auto& output = answer.result.value().output;
  const auto line = job::marked_line(output, result_json::kRankResultsMarker);
  if (answer.result.value().exit_code != 0 || !line)
    return failed(fmt::format("exit {}: {}", answer.result.value().exit_code, output.substr(0, 2000)));
  auto doc = nlohmann::json::parse(*line, nullptr, false);
  auto part = result_json::rank_results_from_json(doc);
  if (!part.ok()) return failed(part.error().message);
  name_copies(part.value(), work);
  return std::move(part.value());
}

}  // namespace

std::string node_binary(const config::Variant& v) {
  return v.analysis.node_binary.empty() ? self_path() : v.analysis.node_binary;
}

metrics::TraceSet analyze_on_nodes(StageContext& ctx, const fs::path& dir, std::vector<std::string>& log) {
  std::vector<NodeWork> work;
  for (const auto& node : ctx.state.node_traces) {
    NodeWork w{node.host, {}};
    for (const auto& file : node.files)
      if (inside(file.second, dir)) w.files.push_back(file);
    if (!w.files.empty()) work.push_back(std::move(w));
  }
  if (work.empty()) {
    metrics::TraceSet none;
    none.errors.push_back("No trace files found in " + dir.string());
    return none;
  }
  std::vector<std::string> all_hosts, hosts, commands;
  for (const auto& w : work) all_hosts.push_back(w.host);
  const auto binaries = binaries_for(ctx, all_hosts, log);
  std::vector<metrics::TraceSet> parts;
  std::vector<const NodeWork*> asked;
  for (size_t i = 0; i < work.size(); ++i) {
    if (!binaries[i]) {  // the node's traces stay unread: its part is the placement's error
      parts.push_back(read_part(work[i], {work[i].host, binaries[i].error()}));
      continue;
    }
    hosts.push_back(work[i].host);
    commands.push_back(ctx.exec.wrap(work[i].host, command_for(*binaries[i], work[i])));
    asked.push_back(&work[i]);
  }
  const auto answers = cluster::run_on_hosts(ctx.exec.transport(), hosts, commands,
                                             std::chrono::seconds(ctx.exec.variant().timeout_seconds));
  size_t traces = 0;
  for (const auto& w : work) traces += w.files.size();
  for (size_t i = 0; i < asked.size(); ++i) parts.push_back(read_part(*asked[i], answers.at(i)));
  const auto first = std::find_if(binaries.begin(), binaries.end(), [](const auto& b) { return b.ok(); });
  log.push_back(fmt::format("Node-side analysis: {} trace(s) read on {} node(s) by {}; the head merged their rank "
                            "results", traces, asked.size(), first == binaries.end() ? "none" : **first));
  return metrics::merge_trace_sets(std::move(parts));
}

void archive_chosen_traces(StageContext& ctx, std::vector<std::string>& log) {
  auto& state = ctx.state;
  const std::string& mode = ctx.exec.variant().analysis.archive_traces;
  if (mode == "all" || !state.deferred_copies) return;
  std::set<std::string> wanted;
  if (mode == "outliers" && state.result)
    for (const auto& finding : state.result->outliers)
      if (!finding.of_node && !finding.source.empty()) wanted.insert(finding.source);
  const std::set<std::string> kept = job::archive_traces(ctx.exec, state, wanted, log, ctx.log);
  std::map<std::string, std::string> on_node;  // copy path here -> host:path on the node
  for (const auto& node : state.node_traces)
    for (const auto& [node_path, here] : node.files)
      if (!kept.count(here)) on_node[here] = node.host + ":" + node_path;
  auto rename = [&](std::string& source) {
    if (auto it = on_node.find(source); it != on_node.end()) source = it->second;
  };
  if (state.parse)
    for (auto& r : state.parse->ranks) rename(r.source);
  if (state.result) {
    for (auto& r : state.result->per_rank) rename(r.source);
    for (auto& finding : state.result->outliers) rename(finding.source);
  }
  state.trace_archive = job::RunState::TraceArchive{{kept.begin(), kept.end()}, on_node.size()};
  log.push_back(fmt::format("Traces kept here (analysis.archive_traces {}): {} of {}{}; the others stay on their "
                            "nodes, named host:path", mode, kept.size(), kept.size() + on_node.size(),
                            kept.empty() ? "" : fmt::format(": {}", fmt::join(kept, ", "))));
}

}  // namespace aorta::stages
