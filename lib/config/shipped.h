// Files shipped with aorta_suite: variant configs, threshold files, the CPU workload.
// Found beside the binary (build tree: <bin>/share/aorta_suite; installed:
// <prefix>/share/aorta_suite), or where AORTA_SUITE_DATA points.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::config {

// The data directory, or an error naming the places looked at.
Result<std::filesystem::path> shipped_data_dir();

// Names of the shipped config and threshold files, sorted, or the data folder's
// error (naming where it looked).
Result<std::vector<std::string>> shipped_config_names();

// The shipped file called `name` (a path prefix such as benchmark/aorta/ is ignored,
// as in `cvs config copy benchmark/aorta/<name>`).
Result<std::filesystem::path> shipped_config(const std::string& name);

// A file named on the command line (--config_file, --cluster_file): `given` as a path
// when it exists (relative to the working directory); else a bare name (no '/') is the
// shipped file of that name, so CI can name one without a `config copy` step. A path
// that exists always wins. `note` is the one line saying which file was chosen, when a
// shipped one could have been: the shipped file used, or the working directory's file
// that shadows a shipped one; empty otherwise. A path with a folder that does not
// exist is returned as given, for the loader to refuse.
struct NamedFile {
  std::filesystem::path path;
  std::string note;
};
// A bare name found in neither place is an error naming `flag`, the name, both places
// looked in and the commands that list and copy the shipped files.
Result<NamedFile> find_named_file(const std::string& flag, const std::string& given);

// Copies a shipped file to `output`; refuses to overwrite an existing file.
Status copy_shipped_config(const std::string& name, const std::filesystem::path& output);

inline constexpr const char* kDefaultVariant = "local_cpu_single.json";

}  // namespace aorta::config
