// TraceLens's own per-rank Excel reports, made by TraceLens (AMD-AGI/TraceLens
// 171dd747, generate_perf_report_pytorch) from the shipped H200 traces. The expected
// values are the gpu_timeline cells as openpyxl reads them.
#include "tracelens/excel_reports.h"

#include <gtest/gtest.h>

#include "tests/temp_dir.h"
#include "tests/workbook_fixture.h"
#include "tracelens/workbook.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::tracelens {
namespace {

namespace fs = std::filesystem;
using aorta::testing::TempDir;
using aorta::testing::write_zip;  // for workbooks TraceLens would never write

const fs::path kData = fs::path(AORTA_TEST_DATA_DIR) / "tracelens";

const std::string kWorkbook =
    R"(<workbook xmlns:r="r"><sheets><sheet name="gpu_timeline" sheetId="1" r:id="rId1"/></sheets></workbook>)";
const std::string kRels = R"(<Relationships><Relationship Id="rId1" Target="worksheets/sheet1.xml"/></Relationships>)";

std::string sheet(const std::string& rows) {
  return R"(<worksheet><sheetData><row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c></row>)" + rows +
         "</sheetData></worksheet>";
}
const std::string kShared = R"(<sst><si><t>type</t></si><si><r><t>time</t></r><r><t> ms</t></r></si><si><t>total_time</t></si></sst>)";

TEST(TracelensWorkbook, ReadsTheRealGpuTimelineSheet) {
  auto got = read_gpu_timeline(kData / "perf_rank0.xlsx");
  ASSERT_TRUE(got.ok()) << got.error().message;
  const std::map<std::string, double> want = {
      {"computation_time", 96.0369462890625},  {"exposed_comm_time", 510.8908857421875},
      {"exposed_memcpy_time", 18.6836064453125}, {"busy_time", 625.6114384765625},
      {"idle_time", 209.9906826171875},        {"total_time", 835.60212109375},
      {"total_comm_time", 575.1112666015625},  {"total_memcpy_time", 19.299671875}};
  EXPECT_EQ(*got, want);
}

// Excel's own layout: shared strings (rich text too), a relative part target.
TEST(TracelensWorkbook, ReadsSharedStringsAndRelativeTargets) {
  TempDir dir;
  write_zip(dir.path() / "w.xlsx", {{"xl/workbook.xml", kWorkbook}, {"xl/_rels/workbook.xml.rels", kRels},
                                    {"xl/sharedStrings.xml", kShared},
                                    {"xl/worksheets/sheet1.xml", sheet(R"(<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>12.5</v></c></row>)")}});
  auto got = read_gpu_timeline(dir.path() / "w.xlsx");
  ASSERT_TRUE(got.ok()) << got.error().message;
  EXPECT_EQ(*got, (std::map<std::string, double>{{"total_time", 12.5}}));
}

TEST(TracelensWorkbook, HostileWorkbooksAreErrorsNamingTheFileAndPart) {
  TempDir dir;
  auto error_of = [&](const std::string& name) {
    auto got = read_gpu_timeline(dir.path() / name);
    EXPECT_FALSE(got.ok()) << name;
    return got.ok() ? std::string() : got.error().message;
  };
  dir.write("text.xlsx", "not a zip at all");
  EXPECT_NE(error_of("text.xlsx").find("text.xlsx: not a readable workbook (zip)"), std::string::npos);

  write_zip(dir.path() / "nosheet.xlsx", {{"xl/workbook.xml", "<workbook><sheets><sheet name='GEMM' r:id='rId1'/></sheets></workbook>"}});
  EXPECT_NE(error_of("nosheet.xlsx").find("No gpu_timeline sheet found in"), std::string::npos);

  write_zip(dir.path() / "nan.xlsx", {{"xl/workbook.xml", kWorkbook}, {"xl/_rels/workbook.xml.rels", kRels},
                                      {"xl/sharedStrings.xml", kShared},
                                      {"xl/worksheets/sheet1.xml", sheet(R"(<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>nan</v></c></row>)")}});
  EXPECT_NE(error_of("nan.xlsx").find("gpu_timeline row 2 (total_time): 'time ms' is not a time: 'nan'"), std::string::npos);

  write_zip(dir.path() / "broken.xlsx", {{"xl/workbook.xml", "<workbook><sheets"}});
  EXPECT_NE(error_of("broken.xlsx").find("xl/workbook.xml is not XML"), std::string::npos);

  // 16 MiB of spaces inflate from a few KiB: refused at the cap, not read.
  write_zip(dir.path() / "bomb.xlsx", {{"xl/workbook.xml", kWorkbook}, {"xl/_rels/workbook.xml.rels", kRels},
                                       {"xl/worksheets/sheet1.xml", std::string(kMaxWorkbookPart + 1024, ' ')}});
  EXPECT_NE(error_of("bomb.xlsx").find("part xl/worksheets/sheet1.xml inflates past 16 MiB"), std::string::npos);

  // One 1 MiB shared string named by 40 cells: 40 MiB of copies, refused at 16.
  std::string cells;
  for (int i = 0; i < 40; ++i) cells += R"(<c r="A)" + std::to_string(i + 2) + R"(" t="s"><v>2</v></c>)";
  write_zip(dir.path() / "copies.xlsx",
            {{"xl/workbook.xml", kWorkbook}, {"xl/_rels/workbook.xml.rels", kRels},
             {"xl/sharedStrings.xml", "<sst><si><t>type</t></si><si><t>time ms</t></si><si><t>" + std::string(1 << 20, 'A') +
                                          "</t></si></sst>"},
             {"xl/worksheets/sheet1.xml", sheet("<row r=\"2\">" + cells + "</row>")}});
  EXPECT_NE(error_of("copies.xlsx").find("gpu_timeline holds more than 16 MiB of cell text"), std::string::npos);
}

std::string repeat(const std::string& text, size_t times) {
  std::string out;
  out.reserve(text.size() * times);
  for (size_t i = 0; i < times; ++i) out += text;
  return out;
}

// Issue 29, item 8: a 154 KB workbook took 0.9 GB, its parts inflating to millions
// of tiny elements. What a workbook holds is bounded, each shape one past its limit
// (a few KiB zipped), the error naming the file and the limit.
TEST(TracelensWorkbook, AWorkbookPastALimitOnWhatItHoldsIsRefused) {
  TempDir dir;
  const std::string sheets = repeat(R"(<sheet name="other" r:id="rId9"/>)", kMaxSheets) +
                             R"(<sheet name="gpu_timeline" r:id="rId1"/>)";
  const std::string header_and_time = R"(<row r="2"><c r="A2" t="s"><v>2</v></c><c r="B2"><v>1</v></c></row>)";
  struct Case {
    const char* name;
    std::string workbook, shared, sheet;
    const char* message;  // after "<file>: "
  } cases[] = {
      {"sheets.xlsx", R"(<workbook xmlns:r="r"><sheets>)" + sheets + "</sheets></workbook>", kShared,
       sheet(header_and_time), "xl/workbook.xml lists more than 1000 sheets"},
      {"rows.xlsx", kWorkbook, kShared, sheet(repeat("<row/>", kMaxSheetRows)), "gpu_timeline has more than 10000 rows"},
      {"cells.xlsx", kWorkbook, kShared, sheet("<row>" + repeat("<c/>", kMaxSheetCells) + "</row>"),
       "gpu_timeline has more than 100000 cells"},
      {"strings.xlsx", kWorkbook, "<sst>" + repeat("<si/>", kMaxSharedStrings + 1) + "</sst>", sheet(header_and_time),
       "xl/sharedStrings.xml holds more than 250000 strings"},
      // Elements the reader never looks at still cost the parser a node each.
      {"markup.xlsx", kWorkbook, kShared, "<worksheet>" + repeat("<x/>", kMaxPartMarkup) + "</worksheet>",
       "part xl/worksheets/sheet1.xml holds more than 1048576 XML tags and attributes"},
      {"attributes.xlsx", kWorkbook, kShared, "<worksheet" + repeat(" a=''", kMaxPartMarkup) + "/>",
       "part xl/worksheets/sheet1.xml holds more than 1048576 XML tags and attributes"},
  };
  for (const auto& c : cases) {
    const fs::path file = dir.path() / c.name;
    write_zip(file, {{"xl/workbook.xml", c.workbook}, {"xl/_rels/workbook.xml.rels", kRels},
                     {"xl/sharedStrings.xml", c.shared}, {"xl/worksheets/sheet1.xml", c.sheet}});
    auto got = read_gpu_timeline(file);
    ASSERT_FALSE(got.ok()) << c.name;
    EXPECT_EQ(got.error().message, file.string() + ": " + c.message);
  }
}

TEST(TracelensExcelReports, RanksFromTheRealReports) {
  TempDir dir;
  fs::create_directories(dir.path() / "individual_reports");
  for (const char* name : {"perf_rank0.xlsx", "perf_rank1.xlsx"})
    fs::copy_file(kData / name, dir.path() / "individual_reports" / name);
  dir.write("individual_reports/perf_rank2.xlsx", "truncated");
  metrics::TraceSet set = parse_excel_reports(dir.path());
  EXPECT_EQ(set.status, metrics::ParseStatus::kPartial);
  EXPECT_EQ(set.files_found, 3u);
  ASSERT_EQ(set.ranks.size(), 2u);
  ASSERT_EQ(set.warnings.size(), 1u);
  EXPECT_NE(set.warnings[0].find("Failed to parse perf_rank2.xlsx: "), std::string::npos) << set.warnings[0];
  const metrics::RankMetrics& r0 = set.ranks[0];
  EXPECT_EQ(r0.rank, 0);
  EXPECT_EQ(r0.parser, metrics::ParserPath::kTracelensExcel);
  EXPECT_DOUBLE_EQ(r0.total_time_us, 835602.12109375);
  EXPECT_DOUBLE_EQ(r0.compute_ratio, 96.0369462890625 / 835.60212109375);
  EXPECT_DOUBLE_EQ(r0.comm_ratio, 510.8908857421875 / 835.60212109375);  // the original's comm: exposed
  EXPECT_NEAR(r0.overlap_ratio, (575.1112666015625 - 510.8908857421875) / 575.1112666015625, 1e-12);
  EXPECT_EQ(set.ranks[1].rank, 1);
  EXPECT_DOUBLE_EQ(set.ranks[1].compute_ratio, 84.5680634765625 / 834.097537109375);
}

// TraceLens and this suite's own gpu_timeline agree on the same trace.
TEST(TracelensExcelReports, AgreeWithTheRawTracePath) {
  TempDir dir;
  fs::create_directories(dir.path() / "individual_reports");
  fs::copy_file(kData / "perf_rank1.xlsx", dir.path() / "individual_reports" / "perf_rank1.xlsx");
  metrics::TraceSet excel = parse_excel_reports(dir.path());
  ASSERT_EQ(excel.ranks.size(), 1u);
  std::vector<std::string> warnings;
  auto raw = metrics::analyze_trace_file(fs::path(AORTA_TEST_DATA_DIR) / "h200-aorta-overlap_rank1.pt.trace.json.gz", {}, warnings);
  ASSERT_TRUE(raw.ok());
  const auto& x = excel.ranks[0];
  EXPECT_NEAR(x.total_time_us, raw->total_time_us, 1e-6 * raw->total_time_us);
  EXPECT_NEAR(x.compute_ratio, raw->compute_ratio, 1e-6);
  EXPECT_NEAR(x.comm_ratio, raw->comm_ratio, 1e-6);
  EXPECT_NEAR(x.overlap_ratio, raw->overlap_ratio, 1e-6);
}

// Two reports of one rank: the first (in name order) counts, the other is named.
TEST(TracelensExcelReports, ADuplicateRankIsReadOnce) {
  TempDir dir;
  fs::create_directories(dir.path() / "individual_reports");
  fs::copy_file(kData / "perf_rank1.xlsx", dir.path() / "individual_reports" / "perf_rank1.xlsx");
  fs::copy_file(kData / "perf_rank0.xlsx", dir.path() / "individual_reports" / "perf_rank1_old.xlsx");
  metrics::TraceSet set = parse_excel_reports(dir.path());
  ASSERT_EQ(set.ranks.size(), 1u);
  EXPECT_DOUBLE_EQ(set.ranks[0].total_time_us, 834097.537109375);
  EXPECT_EQ(set.warnings, std::vector<std::string>{"duplicate rank 1: perf_rank1_old.xlsx ignored, the rank is read from "
                                                   "perf_rank1.xlsx"});
}

TEST(TracelensExcelReports, MissingReportsSaySo) {
  TempDir dir;
  EXPECT_EQ(parse_excel_reports(dir.path()).errors,
            std::vector<std::string>{"Individual reports not found: " + (dir.path() / "individual_reports").string()});
  fs::create_directories(dir.path() / "individual_reports");
  dir.write("individual_reports/perf_8ch_rank3.xlsx.bak", "");
  EXPECT_EQ(parse_excel_reports(dir.path()).errors,
            std::vector<std::string>{"No perf_rank*.xlsx files found in " + (dir.path() / "individual_reports").string()});
  fs::copy_file(kData / "perf_rank1.xlsx", dir.path() / "individual_reports" / "perf_8ch_rank1.xlsx");
  EXPECT_EQ(find_excel_reports(dir.path()), std::vector<fs::path>{dir.path() / "individual_reports" / "perf_8ch_rank1.xlsx"});
}

}  // namespace
}  // namespace aorta::tracelens
