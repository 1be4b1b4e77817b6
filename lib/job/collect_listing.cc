// What a node's listing says and what a listed name may do here: the parse of find's
// records, the trace tree a path belongs to, and the checks that keep every copy
// inside the run's output folder.
#include <algorithm>
#include <cctype>

#include "job/collect.h"

namespace aorta::job {
namespace fs = std::filesystem;

bool is_safe_relative_path(const std::string& path) {
  if (path.empty() || path[0] == '/') return false;
  for (unsigned char c : path)
    if (c < 0x20 || c == 0x7f) return false;
  size_t start = 0;
  while (start <= path.size()) {
    size_t slash = path.find('/', start);
    std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (part.empty() || part == "." || part == "..") return false;
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return true;
}

namespace {

// A decimal count, or -1 when the text is not one.
int64_t number_or_unknown(const std::string& text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](unsigned char c) { return std::isdigit(c); })) return -1;
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return -1;
  }
}

// `<device>:<inode>\t` before the path (find's %D:%i): moved into file, cut from path.
// A path cannot hold a tab, so only the identity field can end in one.
void take_identity(std::string& path, FreshFile& file) {
  const size_t tab = path.find('\t'), colon = path.find(':');
  if (tab == std::string::npos || colon == std::string::npos || colon > tab) return;
  const int64_t device = number_or_unknown(path.substr(0, colon));
  const int64_t inode = number_or_unknown(path.substr(colon + 1, tab - colon - 1));
  if (device < 0 || inode < 0) return;
  file.device = device;
  file.inode = inode;
  path.erase(0, tab + 1);
}

}  // namespace

std::vector<FreshFile> parse_file_listing(const std::string& listing, std::vector<std::string>& rejected,
                                          std::vector<FreshFile>* unsafe) {
  std::vector<FreshFile> files;
  size_t start = 0;
  while (start < listing.size()) {
    size_t end = listing.find('\0', start);
    if (end == std::string::npos) end = listing.size();
    std::string entry = listing.substr(start, end - start);
    start = end + 1;
    // The transport merges stderr into the listing: a stray line (a warning from the
    // container engine) ends in a newline, so the record follows the last one before
    // its first tab.
    size_t tab = entry.find('\t');
    if (tab == std::string::npos) continue;
    if (size_t newline = entry.rfind('\n', tab); newline != std::string::npos) {
      entry.erase(0, newline + 1);
      tab = entry.find('\t');
    }
    FreshFile file;
    // A type letter first (find's %y; P a folder the walk left out, L a link to a
    // folder, W what find said about a folder it could not read, C a count).
    if (tab == 1 && std::isalpha(static_cast<unsigned char>(entry[0]))) {
      file.type = entry[0];
      entry.erase(0, 2);
      if (file.type == 'P' || file.type == 'L' || file.type == 'W') {
        file.path = entry;
        if (file.type == 'W' || is_safe_relative_path(entry)) {
          files.push_back(file);
        } else {
          rejected.push_back(entry);
          file.unsafe = true;
          if (unsafe) unsafe->push_back(file);
        }
        continue;
      }
      if (file.type == 'C') {  // C\t<count>: stale files counted on the node
        file.size = number_or_unknown(entry);
        if (file.size > 0) files.push_back(file);
        continue;
      }
      tab = entry.find('\t');
      if (tab == std::string::npos) continue;
    }
    std::string stamp = entry.substr(0, tab);
    std::string path = entry.substr(tab + 1);
    // A path cannot hold a tab (is_safe_relative_path): a second tab ends the size.
    if (size_t second = path.find('\t'); second != std::string::npos) {
      file.size = number_or_unknown(path.substr(0, second));
      path = path.substr(second + 1);
    }
    take_identity(path, file);
    file.path = path;
    bool stamped = true;
    try {
      file.mtime = std::stod(stamp);
    } catch (const std::exception&) {
      stamped = false;
    }
    if (!is_safe_relative_path(path) || !stamped) {
      rejected.push_back(path);
      file.unsafe = true;
      if (unsafe && stamped) unsafe->push_back(std::move(file));
      continue;
    }
    files.push_back(std::move(file));
  }
  return files;
}

std::string trace_tree(const std::string& relative_path) {
  size_t start = 0;
  while (start < relative_path.size()) {
    size_t slash = relative_path.find('/', start);
    if (slash == std::string::npos) break;
    if (relative_path.compare(start, slash - start, "torch_profiler") == 0) return relative_path.substr(0, slash);
    start = slash + 1;
  }
  return "";
}

bool resolves_inside(const fs::path& root, const fs::path& dest) {
  std::error_code ec;
  fs::path canon_root = fs::weakly_canonical(root, ec);
  fs::path canon = fs::weakly_canonical(dest, ec);
  if (ec) return false;
  auto [r, d] = std::mismatch(canon_root.begin(), canon_root.end(), canon.begin(), canon.end());
  return r == canon_root.end();
}

}  // namespace aorta::job
