// A file the run keeps that holds node output (a node's phase log in the run's
// folder) is redacted where it lies, as the reports are (redact/redact.h).
#pragma once

#include <filesystem>

#include "common/result.h"

namespace aorta::redact {

// Reads file block by block through StreamRedactor into a new file that replaces it
// (write_file_atomically): memory stays bounded whatever the file's size or the length
// of its lines. Only a regular file is read, never through a link. On failure the
// file is left as it was and the error names it and the reason.
Status redact_file_in_place(const std::filesystem::path& file);

}  // namespace aorta::redact
