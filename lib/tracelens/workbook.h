// The `gpu_timeline` sheet of a TraceLens per-rank Excel report (perf_rank<N>.xlsx):
// an .xlsx is a zip of XML parts, read here with libzip and pugixml. A workbook is
// bounded by what it holds, not by its size: a 154 KB zip inflated to parts of
// millions of tiny elements took 0.9 GB. Each part is capped as it inflates, its
// markup counted before it is parsed, and its sheets, rows, cells and strings
// counted as they are read; past a limit, an error names the file and the limit.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "common/result.h"

namespace aorta::tracelens {

// What a workbook may hold. TraceLens's reports have 14 sheets, a gpu_timeline sheet
// of 10 rows and 3 columns (2 KB) and inline strings; an Excel-saved copy puts every
// sheet's strings into one shared table, so that has room for many.
// Inflated bytes of one part read (the workbook, its relations, shared strings, sheet).
inline constexpr size_t kMaxWorkbookPart = 16u << 20;
// Tags and attributes of one part: each costs pugixml's document about 64 bytes.
inline constexpr size_t kMaxPartMarkup = 1u << 20;
inline constexpr size_t kMaxSheets = 1000;
inline constexpr size_t kMaxSheetRows = 10000;
inline constexpr size_t kMaxSheetCells = 100000;
inline constexpr size_t kMaxSharedStrings = 250000;
// The most cell text read from the sheet: cells may all name one huge shared string,
// and each read copies it.
inline constexpr size_t kMaxSheetText = 16u << 20;

// `type` -> `time ms` of the sheet named gpu_timeline (else "GPU Timeline"), from the
// header row holding the columns `type` and `time ms`. Errors name the file and the
// part or row at fault.
Result<std::map<std::string, double>> read_gpu_timeline(const std::filesystem::path& xlsx);

}  // namespace aorta::tracelens
