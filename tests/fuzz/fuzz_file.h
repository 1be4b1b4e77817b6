// The loaders under fuzz read files, so each input is written to one per-process
// scratch file first (the name's suffix is all the loaders look at besides content).
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

namespace aorta::fuzz {

inline std::filesystem::path scratch_file(const uint8_t* data, size_t size, const std::string& name) {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("aorta_fuzz_" + std::to_string(::getpid()));
    std::filesystem::create_directories(d);
    return d;
  }();
  auto path = dir / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                                 static_cast<std::streamsize>(size));
  return path;
}

}  // namespace aorta::fuzz
