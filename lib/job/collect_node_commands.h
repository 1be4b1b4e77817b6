// The commands a collection runs on a node, in one place (the container where there
// is one): the walk that lists the trace candidates, and the copy that opens each
// listed file again, every path component checked, and streams that very file.
#pragma once

#include <cstddef>
#include <string>

#include "job/collect.h"
#include "job/copy_check.h"

namespace aorta::job {

// The file the suite writes into every folder of trace copies it makes
// (<run>/traces, <run>/combined_traces): a later walk of a checkout that holds the
// output folder leaves such a folder unread as an earlier collection's copy.
inline constexpr const char* kCopyMarker = ".aorta-suite-copy";
// The report every finished run of the suite leaves beside its copies: an older
// copy (made before the marker) is told by it.
inline constexpr const char* kRunReportName = "aorta_benchmark_report.json";

// How many stale files (older than the floor) a listing still names in full; the
// rest are only counted (a C record), so a large old tree cannot fill the listing.
inline constexpr size_t kStaleNamed = 36;

// Lists every file under a torch_profiler folder of `repo` (its records are told at
// its definition; parse_file_listing reads them), those not newer than `floor`
// (epoch seconds, 0: none) beyond the first kStaleNamed only counted.
std::string trace_listing_command(const std::string& repo, const std::string& run_id, double floor);

// The exit status of a copy that found the listed file changed or replaced (a link
// on its path, another file, another size): nothing was sent.
inline constexpr int kChangedSinceListed = 65;

// Streams `file` (relative to `repo`) to stdout, compressed by `c`: opened with
// O_NOFOLLOW component by component from repo (a folder or the file swapped for a
// link after the listing is refused), checked to be a regular file with the
// device, inode and size the listing gave, and read from that descriptor only.
// Fails with kChangedSinceListed and the reason on stderr.
std::string listed_copy_command(const std::string& repo, const FreshFile& file, Compression c);

// The copy failure for a copy that ended with kChangedSinceListed.
std::string changed_since_listed(const std::string& host, const std::string& path, const std::string& said);

// Where the checked walk to a node-side `path` starts: at `checkout` when the path
// lies under it (every folder from the checkout down is then checked), else at the
// path itself; `relative` is the path below `root` ("" when they are the same).
struct WalkStart {
  std::string root, relative;
};
WalkStart walk_start(const std::string& checkout, const std::string& path);

// listed_copy_command for a file no listing named (a phase's log): the same walk
// from `root`, every folder and the file opened without following a link, the file
// a regular one; no identity to compare, nothing compressed.
std::string checked_copy_command(const std::string& root, const std::string& relative);

// What a node-side copy said on stderr: its first 500 bytes, trailing blanks cut.
std::string copy_said(const std::string& errors);

// The copy failure for a checked copy (no listing) that ended with kChangedSinceListed.
std::string refused_unlisted(const std::string& host, const std::string& path, const std::string& said);

}  // namespace aorta::job
