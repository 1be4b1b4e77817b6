#include "report/history_html.h"

#include <sstream>

#include <gtest/gtest.h>

#include "history/history_json.h"
#include "tests/history_fixture.h"

namespace aorta::report {
namespace {

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// One trend chart per headline metric of each group, as inline SVG; no script and no
// inline style (Jenkins' CSP), the stylesheet a file beside the page.
TEST(HistoryHtml, OneSvgChartPerTrendAndNothingACspBlocks) {
  testing::TempDir root;
  nlohmann::json r = testing::sample_report();
  for (int i = 1; i <= 3; ++i) testing::write_run(root, "run" + std::to_string(i), r, 1000 * i);
  auto rr = history::read_run_reports(root.path());
  ASSERT_TRUE(rr);
  const auto doc = history::history_json(root.path(), *rr, history::analyse(*rr, {}));
  std::ostringstream page;
  write_history_html(doc, page);
  const std::string html = page.str();
  ASSERT_GT(doc["trends"].size(), 2u);
  EXPECT_EQ(count(html, "<svg"), doc["trends"].size());
  EXPECT_EQ(count(html, "class=\"bar\""), 3 * doc["trends"].size());
  EXPECT_EQ(count(html, "<script"), 0u);
  EXPECT_EQ(count(html, "style="), 0u);
  EXPECT_EQ(count(html, "<style"), 0u);
  EXPECT_NE(html.find("<link rel=\"stylesheet\" href=\"history.css\">"), std::string::npos);
  EXPECT_NE(html.find("data-threshold=\"baseline\""), std::string::npos);
}

}  // namespace
}  // namespace aorta::report
