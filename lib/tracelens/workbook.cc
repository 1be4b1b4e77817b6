#include "tracelens/workbook.h"

#include <zip.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <optional>
#include <vector>

#include <pugixml.hpp>

#include "common/utf8.h"

namespace aorta::tracelens {
namespace {

struct ZipCloser {
  void operator()(zip_t* z) const { zip_discard(z); }
};
using Zip = std::unique_ptr<zip_t, ZipCloser>;

// Text from the file in a message (a part name, a cell): at most a short line of it.
std::string shown(std::string_view text) {
  constexpr size_t kMax = 60;
  return text.size() > kMax ? std::string(utf8_prefix(text, kMax)) + "..." : std::string(text);
}

// A part's bytes, refusing one that inflates past the cap (whatever its header says).
Result<std::optional<std::string>> read_part(zip_t* zip, const std::string& name, const std::string& file) {
  zip_int64_t index = zip_name_locate(zip, name.c_str(), 0);
  if (index < 0) return std::optional<std::string>{};
  zip_file_t* part = zip_fopen_index(zip, static_cast<zip_uint64_t>(index), 0);
  if (!part)
    return Error{ErrorCode::kInvalidInput, file + ": cannot open part " + shown(name) + ": " + zip_strerror(zip), file};
  std::string bytes;
  char buffer[1 << 16];
  zip_int64_t got;
  while ((got = zip_fread(part, buffer, sizeof buffer)) > 0) {
    if (bytes.size() + static_cast<size_t>(got) > kMaxWorkbookPart) {
      zip_fclose(part);
      return Error{ErrorCode::kInvalidInput,
                   file + ": part " + shown(name) + " inflates past " + std::to_string(kMaxWorkbookPart >> 20) + " MiB",
                   file};
    }
    bytes.append(buffer, static_cast<size_t>(got));
  }
  std::string why = got < 0 ? zip_file_strerror(part) : "";
  zip_fclose(part);
  if (got < 0) return Error{ErrorCode::kInvalidInput, file + ": part " + shown(name) + " is damaged: " + why, file};
  return std::optional<std::string>{std::move(bytes)};
}

Result<pugi::xml_document> parse_part(zip_t* zip, const std::string& name, const std::string& file, bool required) {
  auto bytes = read_part(zip, name, file);
  if (!bytes) return bytes.error();
  pugi::xml_document doc;
  if (!*bytes) {
    if (required) return Error{ErrorCode::kInvalidInput, file + ": no " + shown(name) + " (not an Excel workbook?)", file};
    return doc;
  }
  // The document costs pugixml a node (~64 bytes) a tag and a record an attribute:
  // counted first, so millions of them inflated from a small zip are never built.
  const std::string& text = **bytes;
  if (static_cast<size_t>(std::count(text.begin(), text.end(), '<') + std::count(text.begin(), text.end(), '=')) >
      kMaxPartMarkup)
    return Error{ErrorCode::kInvalidInput,
                 file + ": part " + shown(name) + " holds more than " + std::to_string(kMaxPartMarkup) +
                     " XML tags and attributes",
                 file};
  pugi::xml_parse_result parsed = doc.load_buffer(text.data(), text.size());
  if (!parsed)
    return Error{ErrorCode::kInvalidInput, file + ": " + shown(name) + " is not XML: " + parsed.description(), file};
  return doc;
}

// The text runs (<t>) under a string item, rich text included.
std::string runs(pugi::xml_node item) {
  std::string text;
  for (pugi::xpath_node t : item.select_nodes(".//*[local-name()='t']")) text += t.node().text().get();
  return text;
}

// The text of a cell: a shared string, an inline string, or the raw value.
std::string cell_text(pugi::xml_node cell, const std::vector<std::string>& shared) {
  std::string type = cell.attribute("t").value();
  if (type == "inlineStr") return runs(cell.child("is"));
  std::string value = cell.child("v").text().get();
  if (type == "s") {
    char* end = nullptr;
    unsigned long i = std::strtoul(value.c_str(), &end, 10);
    return (!value.empty() && *end == '\0' && i < shared.size()) ? shared[i] : std::string{};
  }
  return value;
}

// "B7" -> "B": the column of a cell reference.
std::string column_of(const char* ref) {
  std::string col;
  for (const char* c = ref; *c >= 'A' && *c <= 'Z'; ++c) col += *c;
  return col;
}

// The workbook's zip, or why it is not one.
Result<Zip> open_workbook(const std::filesystem::path& xlsx, const std::string& file) {
  int code = 0;
  Zip zip(zip_open(xlsx.c_str(), ZIP_RDONLY, &code));
  if (zip) return zip;
  zip_error_t error;
  zip_error_init_with_code(&error, code);
  std::string why = zip_error_strerror(&error);
  zip_error_fini(&error);
  return Error{ErrorCode::kInvalidInput, file + ": not a readable workbook (zip): " + why, file};
}

// The zip part of the gpu_timeline sheet, found by name in xl/workbook.xml and by
// its relationship id in xl/_rels/workbook.xml.rels.
Result<std::string> timeline_part(zip_t* zip, const std::string& file) {
  auto workbook = parse_part(zip, "xl/workbook.xml", file, true);
  if (!workbook) return workbook.error();
  const auto sheets = workbook->child("workbook").child("sheets").children("sheet");
  if (static_cast<size_t>(std::distance(sheets.begin(), sheets.end())) > kMaxSheets)
    return Error{ErrorCode::kInvalidInput,
                 file + ": xl/workbook.xml lists more than " + std::to_string(kMaxSheets) + " sheets", file};
  std::string rel_id;
  for (const char* wanted : {"gpu_timeline", "GPU Timeline"}) {
    for (pugi::xml_node sheet : sheets)
      if (std::string(sheet.attribute("name").value()) == wanted) rel_id = sheet.attribute("r:id").value();
    if (!rel_id.empty()) break;
  }
  if (rel_id.empty()) return Error{ErrorCode::kInvalidInput, "No gpu_timeline sheet found in " + file, file};
  auto rels = parse_part(zip, "xl/_rels/workbook.xml.rels", file, true);
  if (!rels) return rels.error();
  std::string target;
  for (pugi::xml_node rel : rels->child("Relationships").children("Relationship"))
    if (rel_id == rel.attribute("Id").value()) target = rel.attribute("Target").value();
  if (target.empty()) return Error{ErrorCode::kInvalidInput, file + ": the gpu_timeline sheet's part is not listed", file};
  // Targets are relative to xl/ (Excel) or absolute in the package (openpyxl).
  return target[0] == '/' ? target.substr(1) : "xl/" + target;
}

// xl/sharedStrings.xml's strings, in order (none without the part). Its document is
// freed on return, before the sheet's is built.
Result<std::vector<std::string>> shared_strings(zip_t* zip, const std::string& file) {
  std::vector<std::string> shared;
  auto strings = parse_part(zip, "xl/sharedStrings.xml", file, false);
  if (!strings) return strings.error();
  for (pugi::xml_node si : strings->child("sst").children("si")) {
    if (shared.size() == kMaxSharedStrings)
      return Error{ErrorCode::kInvalidInput,
                   file + ": xl/sharedStrings.xml holds more than " + std::to_string(kMaxSharedStrings) + " strings",
                   file};
    shared.push_back(runs(si));
  }
  return shared;
}

// The sheet's rows: the first with a 'type' and a 'time ms' cell is the header, and
// each later row with a type gives that type's time.
Result<std::map<std::string, double>> timeline_rows(const pugi::xml_document& sheet,
                                                    const std::vector<std::string>& shared, const std::string& file) {
  std::string type_col, time_col;
  size_t text_read = 0, rows = 0, cells_seen = 0;
  auto too_many = [&](size_t limit, const char* what) {
    return Error{ErrorCode::kInvalidInput,
                 file + ": gpu_timeline has more than " + std::to_string(limit) + " " + what, file};
  };
  std::map<std::string, double> times;
  for (pugi::xml_node row : sheet.child("worksheet").child("sheetData").children("row")) {
    if (++rows > kMaxSheetRows) return too_many(kMaxSheetRows, "rows");
    std::map<std::string, std::string> cells;
    for (pugi::xml_node c : row.children("c")) {
      if (++cells_seen > kMaxSheetCells) return too_many(kMaxSheetCells, "cells");
      std::string col = column_of(c.attribute("r").value());
      // Past the header only the two columns are read; all text read counts to the cap.
      if (!type_col.empty() && col != type_col && col != time_col) continue;
      std::string text = cell_text(c, shared);
      text_read += text.size();
      if (text_read > kMaxSheetText)
        return Error{ErrorCode::kInvalidInput,
                     file + ": gpu_timeline holds more than " + std::to_string(kMaxSheetText >> 20) + " MiB of cell text",
                     file};
      cells[col] = std::move(text);
    }
    if (type_col.empty()) {
      for (const auto& [col, text] : cells) {
        if (text == "type") type_col = col;
        if (text == "time ms") time_col = col;
      }
      if (type_col.empty() || time_col.empty()) {
        type_col.clear();
        time_col.clear();
      }
      continue;
    }
    const std::string& type = cells[type_col];
    if (type.empty()) continue;
    const std::string& value = cells[time_col];
    errno = 0;
    char* end = nullptr;
    double ms = std::strtod(value.c_str(), &end);
    if (value.empty() || *end != '\0' || errno == ERANGE || !std::isfinite(ms) || ms < 0)
      return Error{ErrorCode::kInvalidInput,
                   file + ": gpu_timeline row " + shown(row.attribute("r").value()) + " (" + shown(type) +
                       "): 'time ms' is not a time: '" + shown(value) + "'",
                   file};
    times[type] = ms;
  }
  if (type_col.empty()) return Error{ErrorCode::kInvalidInput, file + ": gpu_timeline has no 'type' and 'time ms' columns", file};
  return times;
}

}  // namespace

Result<std::map<std::string, double>> read_gpu_timeline(const std::filesystem::path& xlsx) {
  const std::string file = xlsx.string();
  auto zip = open_workbook(xlsx, file);
  if (!zip) return zip.error();
  auto part = timeline_part(zip->get(), file);
  if (!part) return part.error();
  auto shared = shared_strings(zip->get(), file);
  if (!shared) return shared.error();
  auto sheet = parse_part(zip->get(), *part, file, true);
  if (!sheet) return sheet.error();
  return timeline_rows(*sheet, *shared, file);
}

}  // namespace aorta::tracelens
