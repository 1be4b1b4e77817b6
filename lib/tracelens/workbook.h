// The `gpu_timeline` sheet of a TraceLens per-rank Excel report (perf_rank<N>.xlsx):
// an .xlsx is a zip of XML parts, read here with libzip and pugixml. Every part is
// size-capped before it is inflated, so a hostile workbook costs an error, not memory.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "common/result.h"

namespace aorta::tracelens {

// The largest workbook part (sheet, shared strings) read; the gpu_timeline sheet of a
// real report is 2 KB.
inline constexpr size_t kMaxWorkbookPart = 64u << 20;
// The most cell text read from the sheet: cells may all name one huge shared string,
// and each read copies it.
inline constexpr size_t kMaxSheetText = 16u << 20;

// `type` -> `time ms` of the sheet named gpu_timeline (else "GPU Timeline"), from the
// header row holding the columns `type` and `time ms`. Errors name the file and the
// part or row at fault.
Result<std::map<std::string, double>> read_gpu_timeline(const std::filesystem::path& xlsx);

}  // namespace aorta::tracelens
