#include "trace/trace_files.h"

#include <sys/stat.h>

#include <algorithm>
#include <regex>
#include <string>

#include "common/output_path.h"

namespace aorta::trace {
namespace fs = std::filesystem;

bool is_trace_name(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz") || ends_with(".json.zst");
}

namespace {

bool under_torch_profiler(const fs::path& file) {
  for (const auto& part : file.parent_path())
    if (part == "torch_profiler") return true;
  return false;
}

// "<path>: not a regular file (a FIFO)", from stat or lstat: neither opens the file.
std::string not_regular_entry(const fs::path& path, bool follow) {
  struct stat st {};
  const int got = follow ? ::stat(path.c_str(), &st) : ::lstat(path.c_str(), &st);
  return path.string() + ": not a regular file (" + (got == 0 ? file_kind(st.st_mode) : "gone since the listing") + ")";
}

void drop_outside_torch_profiler(std::vector<fs::path>& paths) {
  paths.erase(std::remove_if(paths.begin(), paths.end(), [](const fs::path& p) { return !under_torch_profiler(p); }),
              paths.end());
}

}  // namespace

// An explicit walk rather than recursive_directory_iterator: its
// skip_permission_denied drops a folder without a word, and without it the first
// unreadable folder ends the whole walk.
FoundTraces find_traces(const fs::path& dir) {
  FoundTraces out;
  std::error_code ec;
  // The path given is followed, as the user named it; a FIFO or a device there is named.
  const fs::file_status given = fs::status(dir, ec);
  if (fs::is_regular_file(given)) return {{dir}, {}, {}, {}};
  if (!ec && fs::exists(given) && !fs::is_directory(given)) return {{}, {}, {}, {not_regular_entry(dir, true)}};
  std::vector<fs::path> pending{dir}, special;  // special: a trace's name on a FIFO, socket or device
  while (!pending.empty()) {
    fs::path folder = std::move(pending.back());
    pending.pop_back();
    fs::directory_iterator it(folder, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const auto& entry = *it;
      const std::string name = entry.path().filename().string();
      std::error_code type_ec;
      if (entry.is_symlink(type_ec)) {  // never followed: loops, or files outside the tree
        if (is_trace_name(name) || fs::is_directory(entry.path(), type_ec)) out.links.push_back(entry.path());
        continue;
      }
      if (entry.is_directory(type_ec)) {
        if (name != ".git" && name != ".cvs-aorta") pending.push_back(entry.path());
      } else if (is_trace_name(name)) {
        (entry.is_regular_file(type_ec) ? out.files : special).push_back(entry.path());
      }
    }
    if (ec) out.unreadable.push_back(folder.string() + ": " + ec.message());
    ec.clear();
  }
  if (std::any_of(out.files.begin(), out.files.end(), under_torch_profiler) ||
      std::any_of(special.begin(), special.end(), under_torch_profiler)) {
    drop_outside_torch_profiler(out.files);
    drop_outside_torch_profiler(special);
  }
  std::sort(out.files.begin(), out.files.end());
  std::sort(special.begin(), special.end());
  for (const auto& path : special) out.not_regular.push_back(not_regular_entry(path, false));
  std::sort(out.unreadable.begin(), out.unreadable.end());
  std::sort(out.links.begin(), out.links.end());
  return out;
}

std::vector<fs::path> find_trace_files(const fs::path& dir) { return find_traces(dir).files; }

std::optional<int> rank_from_path(const fs::path& file) {
  static const std::regex patterns[] = {
      std::regex(R"((?:^|[^A-Za-z])rank[_-]?(\d+))", std::regex::icase),
      std::regex(R"((?:^|[^A-Za-z])worker[_-]?(\d+))", std::regex::icase),
      std::regex(R"((?:^|[^A-Za-z])gpu[_-]?(\d+))", std::regex::icase),
  };
  std::vector<std::string> parts;
  for (const auto& part : file) parts.push_back(part.string());
  for (const auto& pattern : patterns) {
    for (auto it = parts.rbegin(); it != parts.rend(); ++it) {
      std::smatch m;
      if (std::regex_search(*it, m, pattern)) {
        try {
          return std::stoi(m[1].str());
        } catch (const std::exception&) {
          return std::nullopt;
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<std::string> host_from_file_name(const fs::path& file) {
  static const std::regex kHandlerName(R"(([A-Za-z0-9][A-Za-z0-9.-]{0,252})_\d+\.\d+\.pt\.trace\.json(\.gz|\.zst)?)");
  std::smatch m;
  const std::string name = file.filename().string();
  if (!std::regex_match(name, m, kHandlerName)) return std::nullopt;
  return m[1].str();
}

}  // namespace aorta::trace
