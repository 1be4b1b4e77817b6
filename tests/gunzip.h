// The shipped .json.gz test traces as text, for tests that need them plain or
// recompressed. zlib's own reader: independent of the trace reader under test.
#pragma once

#include <zlib.h>

#include <filesystem>
#include <string>

namespace aorta::testing {

inline std::string gunzip(const std::filesystem::path& file) {
  gzFile gz = gzopen(file.c_str(), "rb");
  std::string text;
  if (!gz) return text;
  char buf[1 << 16];
  for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, n);
  gzclose(gz);
  return text;
}

}  // namespace aorta::testing
