// Output files are written whole or not at all. A report that a full disk, a signal
// or a crash cuts short must not replace the good one an earlier run left, so the
// text goes to a temporary file beside the target, every write and the close are
// checked, and only then is it renamed over the target.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>

#include "common/result.h"

namespace aorta {

// Writes content to path atomically (same folder, rename), into a folder that
// open_output_folder accepts, never over anything but a regular file that is not one
// of the run's inputs (output_path.h). On any failure the target is left as it was,
// the temporary file is removed, and the error names the path and the reason ("No
// space left on device", "refused to write there: it is a symbolic link ...").
Status write_file_atomically(const std::filesystem::path& path, std::string_view content);

// The same for content made piece by piece, so that a large one need not be held in
// memory: next() gives the next piece, an empty one at the end, or an Error, which
// leaves the target as it was and is returned.
using NextPiece = std::function<Result<std::string>()>;
Status write_file_atomically(const std::filesystem::path& path, const NextPiece& next);

}  // namespace aorta
