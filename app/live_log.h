// <suite>.log while the benchmark runs: node 0's training output, line by line, as
// the original streams it (tail -F follows it); the final log replaces it whole.
#pragma once

#include <filesystem>
#include <string>

#include "job/phase.h"

namespace aorta::app {

// The live log's first line, which tells it apart from the final log.
std::string live_log_header(const std::string& suite, const std::string& run_id);
// A progress function appending each line (redacted) to `path`, opened at the first line.
job::ProgressFn live_log(const std::filesystem::path& path, const std::string& header);
// Removes a live log the final one did not replace (a full disk), saying so.
void remove_stale_live_log(const std::filesystem::path& path, const std::string& header);

}  // namespace aorta::app
