#include "trace/trace_files.h"

#include <algorithm>
#include <regex>
#include <string>

namespace aorta::trace {
namespace fs = std::filesystem;

namespace {

bool is_trace_name(const std::string& name) {
  auto ends_with = [&](const std::string& suffix) {
    return name.size() >= suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz");
}

bool under_torch_profiler(const fs::path& file) {
  for (const auto& part : file.parent_path())
    if (part == "torch_profiler") return true;
  return false;
}

}  // namespace

std::vector<fs::path> find_trace_files(const fs::path& dir) {
  std::vector<fs::path> found;
  std::error_code ec;
  if (fs::is_regular_file(dir, ec)) return {dir};
  for (auto it = fs::recursive_directory_iterator(dir, fs::directory_options::skip_permission_denied, ec);
       it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (ec) break;
    const auto& entry = *it;
    const std::string name = entry.path().filename().string();
    if (entry.is_directory() && (name == ".git" || name == ".cvs-aorta")) {
      it.disable_recursion_pending();
      continue;
    }
    if (entry.is_regular_file() && !entry.is_symlink() && is_trace_name(name)) found.push_back(entry.path());
  }
  bool any_profiler = std::any_of(found.begin(), found.end(), under_torch_profiler);
  if (any_profiler) found.erase(std::remove_if(found.begin(), found.end(),
                                               [](const fs::path& p) { return !under_torch_profiler(p); }),
                                found.end());
  std::sort(found.begin(), found.end());
  return found;
}

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

}  // namespace aorta::trace
