#include "config/shipped.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace aorta::config {
namespace fs = std::filesystem;

Result<fs::path> shipped_data_dir() {
  if (const char* env = std::getenv("AORTA_SUITE_DATA"); env && *env) {
    std::error_code ec;
    if (fs::is_directory(fs::path(env) / "config", ec)) return fs::path(env);
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
    if (fs::is_directory(c / "config", ec)) return c;
  std::string looked;
  for (const auto& c : candidates) looked += " " + c.string();
  return Error{ErrorCode::kNotFound, "shipped configs not found (looked in:" + looked + "); set AORTA_SUITE_DATA", ""};
}

Result<std::vector<std::string>> shipped_config_names() {
  std::vector<std::string> names;
  auto dir = shipped_data_dir();
  if (!dir) return dir.error();
  std::error_code ec;
  for (fs::directory_iterator it(*dir / "config", ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Result<fs::path> shipped_config(const std::string& name) {
  auto dir = shipped_data_dir();
  if (!dir) return dir.error();
  std::string base = fs::path(name).filename().string();
  fs::path file = *dir / "config" / base;
  std::error_code ec;  // a name the OS cannot take is not a shipped config, not an exception
  if (base.empty() || !fs::is_regular_file(file, ec)) {
    std::string known;
    auto names = shipped_config_names();  // the folder was found above
    for (const auto& n : names.value()) known += "\n  " + n;
    return Error{ErrorCode::kNotFound, "no shipped config named '" + name + "'; shipped configs:" + known, ""};
  }
  return file;
}

Result<NamedFile> find_named_file(const std::string& flag, const std::string& given) {
  std::error_code ec;
  const bool exists = fs::exists(given, ec);
  if (given.empty() || given.find('/') != std::string::npos) return NamedFile{given, ""};
  const fs::path here = fs::absolute(given, ec);
  auto shipped = shipped_config(given);
  if (exists)
    return NamedFile{given, shipped ? flag + " " + given + ": " + here.string() +
                                          " from the working directory (it shadows the shipped " + shipped->string() + ")"
                                    : ""};
  if (shipped) return NamedFile{*shipped, flag + " " + given + ": the shipped " + shipped->string() +
                                             " (none in the working directory)"};
  return Error{ErrorCode::kNotFound,
               flag + " " + given + ": not found in the working directory (" + here.parent_path().string() +
                   "), and " + shipped.error().message +
                   "\n  `aorta_suite config list` lists the shipped files; `aorta_suite config copy NAME --output "
                   "FILE` copies one to edit",
               ""};
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
