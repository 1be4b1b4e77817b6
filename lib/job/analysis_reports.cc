#include "job/analysis_reports.h"

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/collect.h"
#include "job/collect_node_commands.h"

namespace aorta::job {
namespace fs = std::filesystem;

namespace {

// Exit 3: no such folder (the analysis wrote nothing), told apart from a failed find.
constexpr int kNoFolder = 3;
// A report file whose listing gave no size may still take no more than this.
constexpr uint64_t kUnlistedReportBytes = uint64_t{1} << 30;

std::string listing_command(const std::string& dir) {
  // -type f skips symlinks, which find does not follow; the floor is applied here,
  // on the listed times, as the original's mtime >= floor. %D:%i: the copy opens that
  // very file or none.
  return "test -d " + shell_quote(dir) + " || exit " + std::to_string(kNoFolder) + "; cd " + shell_quote(dir) +
         " && find . -type f -printf '%T@\\t%s\\t%D:%i\\t%P\\0'";
}

// Streams listed file `f` of `remote_dir` to `local` where the listing ran (the
// container), by the checked walk from the checkout (listed_copy_command): a folder
// swapped for a link, another file or another size is refused. "" when it came whole.
std::string copy_listed(NodeExec& exec, const std::string& host, const std::string& remote_dir, const FreshFile& f,
                        const fs::path& local, std::chrono::seconds timeout) {
  const WalkStart start = walk_start(exec.variant().node_repo_path(), remote_dir);
  FreshFile at = f;
  at.path = start.relative.empty() ? f.path : start.relative + "/" + f.path;
  // The listed size bounds the copy; a listing without one gets the workbook cap.
  const uint64_t limit = f.size >= 0 ? static_cast<uint64_t>(f.size) : kUnlistedReportBytes;
  auto r = exec.transport().stream(host, exec.wrap(host, listed_copy_command(start.root, at, Compression::kNone)), local,
                                   timeout, limit);
  if (!r) return "copy of " + printable(f.path) + " failed: " + r.error().message;
  const std::string said = copy_said(r->errors);
  if (r->exit_code == kChangedSinceListed) return changed_since_listed(host, f.path, said);
  if (r->exit_code != 0)
    return fmt::format("copy of {} failed on the node (exit {}): {}", printable(f.path), r->exit_code, printable(said));
  if (f.size >= 0 && r->bytes != static_cast<uint64_t>(f.size))
    return fmt::format("copy of {} holds {} bytes, the node listed {}", printable(f.path), r->bytes, f.size);
  return "";
}

}  // namespace

Result<FetchedFolder> fetch_report_folder(NodeExec& exec, size_t node, const std::string& remote_dir, double floor,
                                          const fs::path& dest, const fs::path& output_root,
                                          std::chrono::seconds timeout) {
  const std::string& host = exec.hosts().at(node);
  auto fail = [&](ErrorCode code, const std::string& what) { return Error{code, remote_dir + ": " + what, host}; };
  HostResult listed = exec.in_container(node, listing_command(remote_dir), timeout);
  if (!listed.result.ok()) return fail(listed.result.error().code, listed.result.error().message);
  if (listed.result->exit_code == kNoFolder) return fail(ErrorCode::kNotFound, "no such folder (the analysis wrote no reports)");
  if (listed.result->exit_code != 0)
    return fail(ErrorCode::kIo, fmt::format("listing failed (exit {}): {}", listed.result->exit_code,
                                            listed.result->output.substr(0, 500)));
  std::vector<std::string> rejected;
  std::vector<FreshFile> files = parse_file_listing(listed.result->output, rejected);
  if (!rejected.empty()) return fail(ErrorCode::kInvalidInput, "refused unsafe path: " + rejected.front());
  FetchedFolder fetched;
  std::erase_if(files, [&](const FreshFile& f) {
    if (f.mtime >= floor) return false;
    fetched.older.push_back(f.path);
    return true;
  });

  std::error_code ec;
  if (fs::exists(dest, ec)) return fail(ErrorCode::kIo, dest.string() + " already exists");
  fs::path staging = dest.parent_path() / ("." + dest.filename().string() + ".partial");
  // Nothing is removed or made through a link that leads out of the output folder.
  if (!resolves_inside(output_root, staging) || !resolves_inside(output_root, dest))
    return fail(ErrorCode::kInvalidInput, "refused to write outside the output folder: " + dest.string());
  fs::remove_all(staging, ec);
  auto abandon = [&](Error e) {
    std::error_code ignored;
    fs::remove_all(staging, ignored);
    return e;
  };
  for (const auto& f : files) {
    fs::path local = staging / f.path;
    if (!resolves_inside(output_root, local))
      return abandon(fail(ErrorCode::kInvalidInput, "refused to write outside the output folder: " + f.path));
    fs::create_directories(local.parent_path(), ec);
    if (ec) return abandon(fail(ErrorCode::kIo, "cannot create " + local.parent_path().string() + ": " + ec.message()));
    if (std::string why = copy_listed(exec, host, remote_dir, f, local, timeout); !why.empty())
      return abandon(fail(ErrorCode::kIo, why));
    fetched.bytes += fs::file_size(local, ec);
    ++fetched.files;
  }
  fs::create_directories(staging, ec);  // an empty folder is still the analysis's answer
  fs::rename(staging, dest, ec);
  if (ec) return abandon(fail(ErrorCode::kIo, "could not move the reports into " + dest.string() + ": " + ec.message()));
  return fetched;
}

}  // namespace aorta::job
