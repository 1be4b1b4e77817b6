// Excel workbooks written by a test: a zip of chosen parts, and a TraceLens-shaped
// per-rank report whose gpu_timeline sheet holds chosen rows (for workbooks
// TraceLens would never write).
#pragma once

#include <zip.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

namespace aorta::testing {

// A zip of the given parts, in order.
inline void write_zip(const std::filesystem::path& path, const std::vector<std::pair<std::string, std::string>>& parts) {
  int code = 0;
  zip_t* z = zip_open(path.c_str(), ZIP_CREATE | ZIP_TRUNCATE, &code);
  ASSERT_NE(z, nullptr);
  for (const auto& [name, bytes] : parts) {
    zip_source_t* src = zip_source_buffer(z, bytes.data(), bytes.size(), 0);
    ASSERT_GE(zip_file_add(z, name.c_str(), src, ZIP_FL_ENC_UTF_8), 0);
  }
  ASSERT_EQ(zip_close(z), 0);
}

// A workbook with one sheet, gpu_timeline: a "type | time ms" header and one row per
// (type, milliseconds), in inline strings.
inline void write_gpu_timeline_report(const std::filesystem::path& path,
                                      const std::vector<std::pair<std::string, double>>& rows) {
  auto text = [](const std::string& ref, const std::string& s) {
    return fmt::format(R"(<c r="{}" t="inlineStr"><is><t>{}</t></is></c>)", ref, s);
  };
  std::string data = "<row r=\"1\">" + text("A1", "type") + text("B1", "time ms") + "</row>";
  for (size_t i = 0; i < rows.size(); ++i) {
    const std::string n = std::to_string(i + 2);
    data += fmt::format(R"(<row r="{}">{}<c r="B{}"><v>{}</v></c></row>)", n, text("A" + n, rows[i].first), n,
                        rows[i].second);
  }
  write_zip(path, {{"xl/workbook.xml", R"(<workbook xmlns:r="r"><sheets><sheet name="gpu_timeline" sheetId="1" )"
                                       R"(r:id="rId1"/></sheets></workbook>)"},
                   {"xl/_rels/workbook.xml.rels",
                    R"(<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>)"},
                   {"xl/worksheets/sheet1.xml", "<worksheet><sheetData>" + data + "</sheetData></worksheet>"}});
}

}  // namespace aorta::testing
