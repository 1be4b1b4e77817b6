#include "config/shipped.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace aorta::config {
namespace fs = std::filesystem;

Result<fs::path> shipped_data_dir() {
  if (const char* env = std::getenv("AORTA_SUITE_DATA"); env && *env) {
    if (fs::is_directory(fs::path(env) / "config")) return fs::path(env);
    return Error{ErrorCode::kNotFound, std::string("AORTA_SUITE_DATA=") + env + " has no config/ folder", ""};
  }
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  std::vector<fs::path> candidates;
  if (!ec) {
    candidates.push_back(exe.parent_path() / "share" / "aorta_suite");
    candidates.push_back(exe.parent_path().parent_path() / "share" / "aorta_suite");
  }
  for (const auto& c : candidates)
    if (fs::is_directory(c / "config")) return c;
  std::string looked;
  for (const auto& c : candidates) looked += " " + c.string();
  return Error{ErrorCode::kNotFound, "shipped configs not found (looked in:" + looked + "); set AORTA_SUITE_DATA", ""};
}

std::vector<std::string> shipped_config_names() {
  std::vector<std::string> names;
  auto dir = shipped_data_dir();
  if (!dir) return names;
  for (const auto& entry : fs::directory_iterator(*dir / "config"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Result<fs::path> shipped_config(const std::string& name) {
  auto dir = shipped_data_dir();
  if (!dir) return dir.error();
  std::string base = fs::path(name).filename().string();
  fs::path file = *dir / "config" / base;
  if (base.empty() || !fs::is_regular_file(file)) {
    std::string known;
    for (const auto& n : shipped_config_names()) known += "\n  " + n;
    return Error{ErrorCode::kNotFound, "no shipped config named '" + name + "'; shipped configs:" + known, ""};
  }
  return file;
}

Status copy_shipped_config(const std::string& name, const fs::path& output) {
  auto source = shipped_config(name);
  if (!source) return source.error();
  std::error_code ec;
  if (fs::exists(output, ec))
    return Error{ErrorCode::kInvalidInput, "refusing to overwrite " + output.string() + "; remove it first", ""};
  if (output.has_parent_path()) fs::create_directories(output.parent_path(), ec);
  fs::copy_file(*source, output, ec);
  if (ec) return Error{ErrorCode::kIo, "cannot write " + output.string() + ": " + ec.message(), ""};
  return ok_status();
}

}  // namespace aorta::config
