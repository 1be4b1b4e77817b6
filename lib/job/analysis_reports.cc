#include "job/analysis_reports.h"

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "job/collect.h"

namespace aorta::job {
namespace fs = std::filesystem;

namespace {

// Exit 3: no such folder (the analysis wrote nothing), told apart from a failed find.
constexpr int kNoFolder = 3;
// A report file whose listing gave no size may still take no more than this.
constexpr uint64_t kUnlistedReportBytes = uint64_t{1} << 30;

std::string listing_command(const std::string& dir) {
  // -type f skips symlinks, which find does not follow; the floor is applied here,
  // on the listed times, as the original's mtime >= floor.
  return "test -d " + shell_quote(dir) + " || exit " + std::to_string(kNoFolder) + "; cd " + shell_quote(dir) +
         " && find . -type f -printf '%T@\\t%s\\t%P\\0'";
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
    std::string remote = exec.host_path(remote_dir + "/" + f.path);
    // The listed size bounds the copy; a listing without one gets the workbook cap.
    const uint64_t limit = f.size >= 0 ? static_cast<uint64_t>(f.size) : kUnlistedReportBytes;
    if (Status s = exec.transport().download(host, remote, local, limit); !s)
      return abandon(fail(s.error().code, "download of " + f.path + " failed: " + s.error().message));
    fetched.bytes += fs::file_size(local, ec);
    ++fetched.files;
  }
  fs::create_directories(staging, ec);  // an empty folder is still the analysis's answer
  fs::rename(staging, dest, ec);
  if (ec) return abandon(fail(ErrorCode::kIo, "could not move the reports into " + dest.string() + ": " + ec.message()));
  return fetched;
}

}  // namespace aorta::job
