// Issue 42, 9: every link of the HTML report, its Full Log pages and the Run Deck page
// is a path a browser cannot read as a scheme, whatever the folders and files are
// named (a config's output_dir "javascript:alert(1)%2F%2F"), and still leads to its
// file; every name in the bundle is one no extractor can place outside its folder.
#include <zip.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "report/aorta_listener.h"
#include "report/report_writer.h"
#include "tests/deck_fixture.h"
#include "tests/temp_dir.h"

namespace aorta::report {
namespace {
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// An attribute's value as a browser's URL parser gets it: entities decoded, tabs and
// newlines removed, leading and trailing spaces and controls stripped.
std::string as_browser_reads(const std::string& attribute) {
  std::string text = std::regex_replace(attribute, std::regex("&#(\\d+);"), "\x01$1\x02");
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '\x01') {
      size_t end = text.find('\x02', i);
      out += static_cast<char>(std::stoi(text.substr(i + 1, end - i - 1)));
      i = end;
    } else if (text.compare(i, 5, "&amp;") == 0) out += '&', i += 4;
    else if (text.compare(i, 6, "&quot;") == 0) out += '"', i += 5;
    else if (text.compare(i, 6, "&apos;") == 0) out += '\'', i += 5;
    else if (text.compare(i, 4, "&lt;") == 0) out += '<', i += 3;
    else if (text.compare(i, 4, "&gt;") == 0) out += '>', i += 3;
    else out += text[i];
  }
  std::string url;
  for (char c : out)
    if (c != '\t' && c != '\n' && c != '\r') url += c;
  size_t first = 0;
  while (first < url.size() && static_cast<unsigned char>(url[first]) <= 0x20) ++first;
  return url.substr(first);
}

std::string percent_decoded(const std::string& url) {
  std::string out;
  for (size_t i = 0; i < url.size(); ++i)
    if (url[i] == '%' && i + 2 < url.size() && std::isxdigit(url[i + 1]) && std::isxdigit(url[i + 2])) {
      out += static_cast<char>(std::stoi(url.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      out += url[i];
    }
  return out;
}

TEST(ReportLinks, NoLinkCanStartWithASchemeAndEveryLinkLeadsToItsFile) {
  aorta::testing::TempDir dir;
  aorta::testing::DeckFixture deck;
  deck.run.run_id = "r1";
  deck.run.timestamp = "2025-01-02T03:04:05";
  const std::string hostile = "javascript:alert(1)%2F%2F";
  const fs::path report_dir = dir.path() / hostile / "r1";
  const fs::path json = report_dir / "aorta_benchmark_report.json";
  fs::create_directories(report_dir);
  std::ofstream(json) << "{}";
  const std::optional<fs::path> json_report = json;
  std::map<std::string, fs::path> artifacts = {
      {"run_log_node_0", dir.write("logs/ javascript:n0#?.log", "step 1\n")}};
  ReportSetup context;
  context.report_dir = report_dir;
  context.html_file = dir.path() / "report.html";
  context.log_file = dir.path() / (" " + hostile) / "x.log";
  context.input_files = {{"config", dir.write("in/a\\..\\..\\..\\pwned.json", "{}")},
                         {"config", dir.write("in/C:..\\evil .json", "{}")}};
  context.deck.variant = deck.variant;
  context.deck.lifecycle = deck.input(false).lifecycle;
  auto listener = AortaListener::create(context, deck.run, {"log", "deck", "html", "bundle"},
                                        [&] { return RunProducts{{}, artifacts, json_report}; });
  ASSERT_TRUE(listener.ok()) << listener.error().describe();
  (*listener)->write_reports();
  ASSERT_FALSE((*listener)->write_failed());

  const std::regex attribute(R"re((?:href|src)="([^"]*)")re"), scheme("^[A-Za-z][A-Za-z0-9+.-]*:");
  size_t links = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir.path())) {
    if (e.path().extension() != ".html") continue;
    const std::string page = slurp(e.path());
    for (std::sregex_iterator it(page.begin(), page.end(), attribute), end; it != end; ++it, ++links) {
      const std::string url = as_browser_reads((*it)[1]);
      EXPECT_FALSE(std::regex_search(url, scheme)) << e.path().filename() << ": " << url;
      EXPECT_TRUE(fs::exists(e.path().parent_path() / percent_decoded(url)))
          << e.path().filename() << ": " << url << " leads nowhere";
    }
  }
  EXPECT_GE(links, 8u);  // the stylesheets, the JSON report, the deck, the log, a node log, Full Logs, back links

  fs::path zip_file;
  for (const auto& e : fs::directory_iterator(dir.path()))
    if (e.path().extension() == ".zip") zip_file = e.path();
  ASSERT_FALSE(zip_file.empty());
  int error = 0;
  zip_t* zip = zip_open(zip_file.c_str(), ZIP_RDONLY, &error);
  ASSERT_NE(zip, nullptr);
  std::set<std::string> names;
  for (zip_int64_t i = 0; i < zip_get_num_entries(zip, 0); ++i) names.insert(zip_get_name(zip, i, 0));
  zip_close(zip);
  EXPECT_TRUE(names.count("aorta_single_html/config_a_.._.._.._pwned.json")) << *names.begin();
  for (const auto& name : names) {
    EXPECT_EQ(name.find_first_of("\\:"), std::string::npos) << name;
    EXPECT_NE(name.front(), '/') << name;
    std::stringstream parts(name);
    for (std::string part; std::getline(parts, part, '/');) {
      EXPECT_NE(part, "..") << name;
      EXPECT_TRUE(!part.empty() && part.back() != '.' && part.back() != ' ') << name;
    }
  }
}

// The rule by itself: a first segment with ':' gets "./"; what would end a path is encoded.
TEST(ReportLinks, LinkHrefMakesAPath) {
  EXPECT_EQ(link_href("aorta_single_html/report.css"), "aorta_single_html/report.css");
  EXPECT_EQ(link_href("../r.html"), "../r.html");
  EXPECT_EQ(link_href("javascript:alert(1)%2F%2F/r1/x.json"), "./javascript:alert(1)%252F%252F/r1/x.json");
  EXPECT_EQ(link_href(" javascript:x"), "./%20javascript:x");
  EXPECT_EQ(link_href("java\tscript:x"), "./java%09script:x");
  EXPECT_EQ(link_href("a/b:c#d?e\\f\"g"), "a/b:c%23d%3Fe%5Cf&quot;g");
}

}  // namespace
}  // namespace aorta::report
