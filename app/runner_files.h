// Files a test runner names for gtest to write on the run's behalf (the kRunnerFile
// rows of gtest_environment.h): GTEST_SHARD_STATUS_FILE, made empty to say that the
// program knows the sharding protocol, and TEST_PREMATURE_EXIT_FILE (Bazel's), there
// while the program runs and removed at its normal end. gtest would fopen them as
// they are, following a link or blocking on a FIFO; the run takes the variables out
// of its environment (gtest and the workload never see them) and writes the files
// itself, probed first and then written as every report file is (output_path.h).
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "app/gtest_flags.h"
#include "common/result.h"

namespace aorta::app {

struct RunnerFile {
  std::string variable;  // for messages: GTEST_SHARD_STATUS_FILE
  std::filesystem::path path;  // absolute
};

// The runner files the environment names (set and not empty), made absolute.
std::vector<RunnerFile> runner_files(const Getenv& getenv);

// Unsets every runner file variable in this process, so that gtest writes none.
void hide_runner_files_from_gtest();

// The files, written; the premature-exit file is removed when this object goes at the
// run's normal end (a crash leaves it, which is what it tells the runner).
class RunnerFilesWritten {
 public:
  // A file that cannot be written is an error naming its variable and path.
  static Result<RunnerFilesWritten> write(const std::vector<RunnerFile>& files);
  RunnerFilesWritten(RunnerFilesWritten&& other) noexcept : premature_exit_(std::move(other.premature_exit_)) {
    other.premature_exit_.path.clear();
  }
  RunnerFilesWritten(const RunnerFilesWritten&) = delete;
  RunnerFilesWritten& operator=(const RunnerFilesWritten&) = delete;
  RunnerFilesWritten& operator=(RunnerFilesWritten&&) = delete;
  ~RunnerFilesWritten();

 private:
  RunnerFilesWritten() = default;
  // The file written, removed only if it is still the one written (same device and inode).
  struct Written {
    std::filesystem::path path;
    dev_t device = 0;
    ino_t inode = 0;
  } premature_exit_;
};

}  // namespace aorta::app
