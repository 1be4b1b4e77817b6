// A minimal zip writer (stored entries, CRC-32 from zlib) for the report bundle:
// every entry is small text, so compression would buy little and cost a dependency.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace aorta::report {

// entries: (name inside the archive, file on disk), written in this order.
Status write_zip(const std::filesystem::path& zip,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& entries);

}  // namespace aorta::report
