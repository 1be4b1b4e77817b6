#include "job/run_retention.h"

#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

// $1 the suite folder, $2 this run's id, $3 how many runs to keep, $4 1 when this run's
// traces are home. Arguments, never text pasted into the script.
constexpr const char* kRetentionScript = R"sh(cd -- "$1" 2>/dev/null || exit 0
shopt -s nullglob
current=$2 keep=$3 collected=$4
remove() {
  local gone=".removing.$1.$$" why
  if mv -T -- "$1" "$gone" 2>/dev/null; then
    # Another node's sweep may remove it at the same time: gone is removed either way.
    if why=$(rm -rf -- "$gone" 2>&1) || ! [ -e "$gone" ]; then echo "REMOVED $1"; else echo "FAILED $1 ${why%%$'\n'*}"; fi
  elif [ -e "$1" ]; then echo "FAILED $1 cannot be renamed for removal"; fi
}
# Removals cut short (a signal, a dropped link), not another node's removal under way.
find . -mindepth 1 -maxdepth 1 -name '.removing.*' -type d -mmin +10 -exec rm -rf -- {} + 2>/dev/null
kept=0
if [[ $current =~ ^[0-9a-f]{32}$ && -d $current && ! -L $current ]]; then
  if [ "$keep" -gt 0 ]; then echo "KEPT $current"; kept=1
  elif [ "$collected" = 1 ]; then remove "$current"
  else echo "UNCOLLECTED $current"; fi
fi
for d in *; do
  [[ $d =~ ^[0-9a-f]{32}$ && $d != "$current" && -d $d && ! -L $d ]] && t=$(stat -c %Y -- "$d" 2>/dev/null) &&
    printf '%s %s\n' "$t" "$d"
done | sort -rn | while read -r _ d; do
  if [ "$kept" -lt "$keep" ]; then echo "KEPT $d"; kept=$((kept + 1)); else remove "$d"; fi
done
)sh";

// Whether this run's traces are home from every node it holds the lock of: collected,
// and no collection error. One answer for all: nodes on shared storage share the run's
// folder, so one node removing it would take another node's uncollected traces.
bool traces_home(const RunState& state) {
  for (const auto& [host, pid] : state.workdir_locks) {
    if (!state.trace_trees.count(host)) return false;
    for (const auto& e : state.collection_errors)
      if (e.host == host) return false;
  }
  return true;
}

// "a1b2c3d4, e5f6a7b8 and 3 more": the first 8 digits of a few run ids.
std::string short_ids(const std::vector<std::string>& ids) {
  std::string out;
  const size_t shown = std::min<size_t>(ids.size(), 4);
  for (size_t i = 0; i < shown; ++i) out += (i ? ", " : "") + (ids[i].size() == 32 ? ids[i].substr(0, 8) : ids[i]);
  if (ids.size() > shown) out += fmt::format(" and {} more", ids.size() - shown);
  return out;
}

// A folder the script could not remove, and why.
struct Unremoved {
  std::string id;
  std::string why;
};

// The node's note from the script's lines; `failed` gets each folder it could not remove.
std::string node_note(const std::string& host, const std::string& output, const std::string& run_id, int keep,
                      std::vector<Unremoved>& failed) {
  std::vector<std::string> removed, kept_earlier;
  bool kept_this = false, uncollected = false;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    const auto space = line.find(' ');
    const std::string word = line.substr(0, space), rest = space == std::string::npos ? "" : line.substr(space + 1);
    const auto id_end = rest.find(' ');
    const std::string id = rest.substr(0, id_end);
    if (word == "REMOVED") removed.push_back(id == run_id ? "this run's" : id);
    if (word == "KEPT" && id == run_id) kept_this = true;
    if (word == "KEPT" && id != run_id) kept_earlier.push_back(id);
    if (word == "UNCOLLECTED") kept_this = uncollected = true;
    if (word == "FAILED") failed.push_back({id, id_end == std::string::npos ? "" : rest.substr(id_end + 1)});
  }
  std::string note = fmt::format("{}: removed {} run folder(s){}", host, removed.size(),
                                 removed.empty() ? "" : " (" + short_ids(removed) + ")");
  std::vector<std::string> kept = kept_earlier;
  if (kept_this) kept.insert(kept.begin(), "this run's");
  note += fmt::format(", kept {}{}", kept.size(), kept.empty() ? "" : " (" + short_ids(kept) + ")");
  if (uncollected) note += "; this run's folder is kept: its traces did not all come home";
  return note + fmt::format(" (keep_node_runs {})", keep);
}

}  // namespace

std::string retention_command(const std::string& suite_dir, const std::string& run_id, int keep, bool collected) {
  return "bash -c " + shell_quote(kRetentionScript) + " retention " + shell_quote(suite_dir) + " " +
         shell_quote(run_id) + " " + std::to_string(std::max(keep, 0)) + " " + (collected ? "1" : "0");
}

RetentionOutcome apply_retention(NodeExec& exec, const RunState& state) {
  RetentionOutcome out;
  if (state.workdir_locks.empty()) return out;
  const config::Variant& v = exec.variant();
  std::vector<std::string> hosts, commands;
  const bool collected = traces_home(state);
  for (const auto& [host, pid] : state.workdir_locks) {
    hosts.push_back(host);
    commands.push_back(retention_command(v.aorta_path + "/" + kSuiteFolder, state.run_id, v.keep_node_runs, collected));
  }
  auto results = cluster::run_on_hosts(exec.transport(), hosts, commands, std::chrono::seconds(v.timeout_seconds));
  for (const auto& r : results) {
    if (!r.result.ok() || r.result->exit_code != 0) {
      out.errors.push_back(fmt::format("{}: the run folders under {}/{} could not be listed or removed: {}", r.host,
                                       v.aorta_path, kSuiteFolder, cluster::describe_failures({r})));
      continue;
    }
    std::vector<Unremoved> failed;
    out.notes.push_back(node_note(r.host, r.result->output, state.run_id, v.keep_node_runs, failed));
    for (const auto& f : failed)
      out.errors.push_back(fmt::format("{}: could not remove the run folder {}/{}/{} ({}); the next run retries, or "
                                       "remove it by hand",
                                       r.host, v.aorta_path, kSuiteFolder, f.id, f.why));
  }
  return out;
}

}  // namespace aorta::job
