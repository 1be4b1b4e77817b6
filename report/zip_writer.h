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

// One component of an entry name as every extractor takes it literally: "\" (a folder
// separator to Windows tools), ':' (a drive letter, an NTFS stream), the other
// characters Windows forbids in names and control characters become '_', and so do
// trailing dots and spaces (Windows drops them, making ".. " a ".."); "." and ".."
// become "_" and "__". A name from an input (a config's file name) goes through this.
std::string portable_name_part(const std::string& part);

// An entry name of portable parts joined by "/", none empty: no entry can land outside
// the folder the bundle is unpacked in, whichever extractor unpacks it (issue 42, 9).
std::string portable_entry_name(const std::string& name);

// entries: (name inside the archive, file on disk), written in this order, each name
// made portable_entry_name. A file that is not a regular file (a link someone placed,
// a folder) is refused, naming it.
Status write_zip(const std::filesystem::path& zip,
                 const std::vector<std::pair<std::string, std::filesystem::path>>& entries);

}  // namespace aorta::report
