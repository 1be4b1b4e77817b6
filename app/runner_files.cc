#include "app/runner_files.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>

#include "app/gtest_environment.h"
#include "common/atomic_file.h"
#include "common/output_path.h"

namespace aorta::app {
namespace fs = std::filesystem;

namespace {

constexpr const char* kPrematureExit = "TEST_PREMATURE_EXIT_FILE";

}  // namespace

std::vector<RunnerFile> runner_files(const Getenv& getenv) {
  std::vector<RunnerFile> files;
  for (const auto& v : gtest_variables())
    if (const char* path = getenv(v.name.c_str()); v.rule == EnvRule::kRunnerFile && path && *path) {
      std::error_code ec;
      files.push_back({v.name, fs::absolute(path, ec)});
    }
  return files;
}

void hide_runner_files_from_gtest() {
  for (const auto& v : gtest_variables())
    if (v.rule == EnvRule::kRunnerFile) ::unsetenv(v.name.c_str());
}

Result<RunnerFilesWritten> RunnerFilesWritten::write(const std::vector<RunnerFile>& files) {
  RunnerFilesWritten written;
  for (const auto& f : files) {
    // What gtest writes: nothing in the shard status file, "0" in the premature-exit one.
    const bool premature = f.variable == kPrematureExit;
    if (Status s = write_file_atomically(f.path, premature ? "0" : ""); !s)
      return Error{s.error().code, s.error().describe(), f.variable};
    struct stat st{};
    if (premature && ::lstat(f.path.c_str(), &st) == 0) written.premature_exit_ = {f.path, st.st_dev, st.st_ino};
  }
  return written;
}

RunnerFilesWritten::~RunnerFilesWritten() {
  if (premature_exit_.path.empty()) return;
  // Through the folder's checked handle, and only the file written: never what a link
  // or a swapped folder would lead to.
  auto folder = open_output_folder(premature_exit_.path.parent_path(), false);
  if (!folder) return;
  const std::string name = premature_exit_.path.filename().string();
  struct stat st{};
  if (::fstatat(folder->fd(), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode) &&
      st.st_dev == premature_exit_.device && st.st_ino == premature_exit_.inode)
    ::unlinkat(folder->fd(), name.c_str(), 0);
}

}  // namespace aorta::app
