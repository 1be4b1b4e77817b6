#include "job/node_package.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <set>

#include <fmt/format.h>

#include "common/file_sha256.h"
#include "common/shell_quote.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

namespace fs = std::filesystem;

constexpr auto kCommandTimeout = std::chrono::seconds(300);

// Runs `held` when dir holds the package, `missing` otherwise. Plain `sha256sum -c`
// (no --strict, --quiet): BusyBox's takes it too.
std::string if_held(const std::string& dir, const Package& package, const std::string& held, const std::string& missing) {
  return "if ( cd -- " + shell_quote(dir) + " 2>/dev/null && printf %s " + shell_quote(manifest(package)) +
         " | sha256sum -c - >/dev/null 2>&1 && [ -x bin/aorta_suite ] ); then " + held + "; else " + missing + "; fi";
}

// Checks the copy in `part`, makes the binary runnable and renames it into `dir`; a
// node that shares `dir` may have placed it first, and a damaged `dir` is replaced. A
// copy that does not match is removed, its files that differ named.
std::string finish_command(const std::string& part, const std::string& dir, const Package& package) {
  const std::string p = shell_quote(part), d = shell_quote(dir);
  return "cd -- " + p + " || exit 3\n"
         "if ! sums=$(printf %s " + shell_quote(manifest(package)) + " | sha256sum -c - 2>&1); then\n"
         "  printf '%s\\n' \"$sums\" | grep -v ': OK$'\n"
         "  echo 'the copy on the node does not match the head'\"'\"'s files'; cd / && rm -rf -- " + p + "; exit 3\n"
         "fi\n"
         "chmod 700 bin/aorta_suite && cd / || exit 3\n"
         "if ! mv -T -- " + p + " " + d + " 2>/dev/null; then\n  " +
         if_held(dir, package, "rm -rf -- " + p, "rm -rf -- " + d + " && mv -T -- " + p + " " + d) + "\n"
         "fi\n" +
         if_held(dir, package, std::string("echo ") + kPackageHeld, "echo 'the package is not whole after the rename'; exit 3");
}

// Other builds' packages and copies a cancelled or failed run left: only the names this
// code makes (<sha256>, <sha256>.part-*), never a link, so a root that is itself a link
// (packages on a bigger disk) loses nothing else of its target.
std::string prune_command(const std::string& root, const std::string& id) {
  return "cd -- " + shell_quote(root) + " 2>/dev/null || exit 0; shopt -s nullglob; for d in *; do "
         "[[ $d =~ ^[0-9a-f]{64}(\\.part-[A-Za-z0-9_-]+)?$ && $d != " + shell_quote(id) + " && ! -L $d ]] && "
         "rm -rf -- \"$d\"; done; true";
}

std::string mb(uintmax_t bytes) { return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6); }

}  // namespace

uintmax_t Package::bytes() const {
  uintmax_t sum = 0;
  for (const auto& f : files) sum += f.bytes;
  return sum;
}

Result<Package> package_of(const fs::path& binary) {
  const fs::path bin = binary.parent_path(), libs = bin.parent_path() / "lib" / "aorta_suite";
  std::error_code ec;
  if (bin.filename() != "bin" || !fs::is_directory(libs, ec))
    return Error{ErrorCode::kNotFound,
                 fmt::format("{} is not in the package layout (bin/ beside lib/aorta_suite/, as the TGZ and the DEB "
                             "install it)", binary.string()),
                 ""};
  std::vector<std::pair<fs::path, std::string>> chosen{{binary, "bin/aorta_suite"}};
  // The names the binary loads: each link (its target's bytes), and each file no link names.
  std::set<fs::path> linked;
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(libs, ec)) entries.push_back(entry.path());
  if (ec) return Error{ErrorCode::kIo, "cannot list " + libs.string() + ": " + ec.message(), ""};
  std::sort(entries.begin(), entries.end());
  for (const auto& e : entries)
    if (fs::is_symlink(e, ec)) linked.insert(fs::weakly_canonical(e, ec));
  for (const auto& e : entries) {
    const bool link = fs::is_symlink(e, ec);
    if (!link && linked.count(fs::weakly_canonical(e, ec))) continue;
    if (!fs::is_regular_file(e, ec)) continue;  // a dangling link, a folder: nothing the binary loads
    chosen.emplace_back(e, "lib/aorta_suite/" + e.filename().string());
  }
  Package package;
  for (const auto& [path, name] : chosen) {
    auto sha = file_sha256(path);
    if (!sha) return sha.error();
    package.files.push_back({path, name, *sha, fs::file_size(path, ec)});
  }
  package.id = text_sha256(manifest(package));
  return package;
}

std::string manifest(const Package& package) {
  std::string text;
  for (const auto& f : package.files) text += f.sha256 + "  " + f.name + "\n";
  return text;
}

std::string package_root(const config::Variant& v) {
  return v.node_repo_path() + "/" + kSuiteFolder + "/package";
}

std::string package_check_command(const std::string& dir, const Package& package) {
  return std::string("command -v sha256sum >/dev/null 2>&1 || { echo ") + kNoSha256sum + "; exit 0; }; " +
         if_held(dir, package, std::string("echo ") + kPackageHeld, "true");
}

namespace {

// What to do about a node that does not have the package, by why.
enum class Cause { kNoAnswer, kNoSha256sum, kCopy };

// One placement on `hosts`: each step runs on the nodes it concerns, all at once.
class Placer {
 public:
  Placer(NodeExec& exec, const std::vector<std::string>& hosts, const Package& package, const std::string& run_id)
      : exec_(exec), hosts_(hosts), package_(package), run_id_(run_id),
        node_dir_(package_root(exec.variant()) + "/" + package.id), dir_(exec.host_path(node_dir_)) {
    out.binaries.assign(hosts.size(), Error{ErrorCode::kIo, "not placed", ""});
  }

  // Which of `which` lack the package (the others hold it, or cannot take it).
  std::vector<size_t> missing(const std::vector<size_t>& which) {
    auto answers = on_nodes(which, [&](size_t) { return package_check_command(dir_, package_); });
    std::vector<size_t> lacking;
    for (size_t k = 0; k < which.size(); ++k) {
      const auto& r = answers[k].result;
      if (!r.ok()) failed(which[k], Cause::kNoAnswer, r.error().message);
      else if (r->output.find(kNoSha256sum) != std::string::npos) failed(which[k], Cause::kNoSha256sum, "");
      else if (r->output.find(kPackageHeld) != std::string::npos) out.binaries[which[k]] = binary();
      else lacking.push_back(which[k]);
    }
    return lacking;
  }

  // Each of `which` gets its own copy, checked there, renamed into place; a copy that
  // failed is removed. Whether any node took it.
  bool place(const std::vector<size_t>& which) {
    auto prepared = on_nodes(which, [&](size_t i) {
      const std::string part = part_for(i);
      return "rm -rf -- " + shell_quote(part) + " && ( umask 077 && mkdir -p -- " + shell_quote(part + "/bin") + " " +
             shell_quote(part + "/lib/aorta_suite") + " )";
    });
    std::vector<cluster::UploadJob> jobs;
    std::vector<size_t> ready, sent, unsent;
    for (size_t k = 0; k < which.size(); ++k) {
      const auto& r = prepared[k].result;
      if (!r.ok() || r->exit_code != 0) {
        failed(which[k], Cause::kCopy, r.ok() ? "cannot make its folder: " + r->output.substr(0, 500) : r.error().message);
        continue;
      }
      ready.push_back(which[k]);
      for (const auto& f : package_.files) jobs.push_back({hosts_[which[k]], f.here, part_for(which[k]) + "/" + f.name});
    }
    const auto timeout = std::chrono::seconds(std::max(exec_.variant().timeout_seconds, 60));
    const auto uploaded = exec_.transport().upload_batch(jobs, 16, timeout);
    for (size_t k = 0; k < ready.size(); ++k) {
      const auto first = uploaded.begin() + static_cast<long>(k * package_.files.size());
      const auto last = first + static_cast<long>(package_.files.size());
      const auto bad = std::find_if(first, last, [](const Status& s) { return !s; });
      if (bad == last) sent.push_back(ready[k]);
      else failed(ready[k], Cause::kCopy, bad->error().message), unsent.push_back(ready[k]);
    }
    // A partial copy must not stay: a full disk would gain one each run.
    on_nodes(unsent, [&](size_t i) { return "rm -rf -- " + shell_quote(part_for(i)); });
    auto finished = on_nodes(sent, [&](size_t i) { return finish_command(part_for(i), dir_, package_); });
    const size_t before = placed;
    for (size_t k = 0; k < sent.size(); ++k) {
      const auto& r = finished[k].result;
      if (r.ok() && r->output.find(kPackageHeld) != std::string::npos) out.binaries[sent[k]] = binary(), ++placed;
      else failed(sent[k], Cause::kCopy, r.ok() ? r->output.substr(0, 1000) : r.error().message);
    }
    return placed > before;
  }

  // Other builds' packages (and copies a cancelled run left) go, on the nodes that hold this one.
  void prune() {
    std::vector<size_t> holders;
    for (size_t i = 0; i < hosts_.size(); ++i)
      if (out.binaries[i].ok()) holders.push_back(i);
    const std::string root = exec_.host_path(package_root(exec_.variant()));
    on_nodes(holders, [&](size_t) { return prune_command(root, package_.id); });
  }

  size_t holding() const {
    return static_cast<size_t>(std::count_if(out.binaries.begin(), out.binaries.end(), [](const auto& b) { return b.ok(); }));
  }

  Placement out;
  size_t placed = 0;

 private:
  std::vector<cluster::HostResult> on_nodes(const std::vector<size_t>& which,
                                            const std::function<std::string(size_t)>& command) {
    std::vector<std::string> on, commands;
    for (size_t i : which) on.push_back(hosts_[i]), commands.push_back(command(i));
    return cluster::run_on_hosts(exec_.transport(), on, commands, kCommandTimeout);
  }
  std::string binary() const { return node_dir_ + "/bin/aorta_suite"; }
  // This run's copy in flight on host i (nodes sharing storage each have their own).
  std::string part_for(size_t i) const {
    const auto& all = exec_.hosts();
    const size_t node = static_cast<size_t>(std::find(all.begin(), all.end(), hosts_[i]) - all.begin());
    return dir_ + ".part-" + run_id_ + "-" + std::to_string(node);
  }
  void failed(size_t i, Cause cause, const std::string& why) {
    const std::string instead = "or install this build on the node and name it in analysis.node_binary";
    std::string text;
    if (cause == Cause::kNoAnswer)
      text = fmt::format("the suite's package could not be checked in {}: {}; the node's traces stay unread", dir_, why);
    else if (cause == Cause::kNoSha256sum)
      text = fmt::format("sha256sum (coreutils) is missing on the node, so the suite's package cannot be checked there: "
                         "install coreutils, {}", instead);
    else
      text = fmt::format("the suite's package ({}) could not be placed in {}: {}; free space there, {}",
                         mb(package_.bytes()), dir_, why, instead);
    out.binaries[i] = Error{ErrorCode::kIo, text, hosts_[i]};
  }

  NodeExec& exec_;
  const std::vector<std::string>& hosts_;
  const Package& package_;
  const std::string run_id_, node_dir_, dir_;
};

// Nodes that share storage get one copy: a node is placed alone (the next one if it
// fails, a few at most), then the rest are checked again before they get theirs.
constexpr size_t kPlacedAloneTries = 3;

}  // namespace

Placement place_package(NodeExec& exec, const std::vector<std::string>& hosts, const Package& package,
                        const std::string& run_id) {
  const auto began = std::chrono::steady_clock::now();
  Placer placer(exec, hosts, package, run_id);
  std::vector<size_t> all(hosts.size());
  for (size_t i = 0; i < all.size(); ++i) all[i] = i;
  std::vector<size_t> missing = placer.missing(all);
  const size_t held_before = placer.holding();
  for (size_t tries = 0; !missing.empty() && tries < kPlacedAloneTries; ++tries) {
    const size_t alone = missing.front();
    missing.erase(missing.begin());
    if (placer.place({alone})) break;
  }
  if (!missing.empty()) missing = placer.missing(missing);
  if (!missing.empty()) placer.place(missing);
  placer.prune();
  const size_t holders = placer.holding(), libraries = package.files.size() - 1;
  placer.out.summary = fmt::format(
      "Suite package {} (bin/aorta_suite and {} librar{}, {}; SHA-256 checked on each node): already on {} of {} "
      "node(s), placed on {}{} in {:.1f} s",
      package.id.substr(0, 12), libraries, libraries == 1 ? "y" : "ies", mb(package.bytes()), held_before,
      hosts.size(), placer.placed, holders == hosts.size() ? "" : fmt::format(", not on {}", hosts.size() - holders),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count());
  return std::move(placer.out);
}

}  // namespace aorta::job
