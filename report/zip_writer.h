// The report bundle through libzip (Debian's libzip-dev): each entry deflated at
// level 9 and read from its file while the archive is written (no copy in memory),
// zip64 where sizes need it. The archive appears whole or not at all: libzip
// writes a temporary file beside it and renames it into place.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "common/result.h"

namespace aorta::report {

// entries: (name inside the archive, file on disk), written in this order. A file
// that is not a regular file (a link someone placed, a folder) is refused, naming it.
Status write_zip(const std::filesystem::path& zip,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& entries);

}  // namespace aorta::report
