// The bundle, read back by an independent reader (Python's zipfile).
#include "report/zip_writer.h"

#include <cstdio>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::report {
namespace {

// "name size compress_type" per entry, or the reader's error; testzip() checks every CRC.
std::string python_listing(const std::filesystem::path& zip) {
  std::string cmd = "/usr/bin/python3 -c 'import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); "
                    "assert z.testzip() is None; "
                    "[print(i.filename, i.file_size, i.compress_type) for i in z.infolist()]' " + zip.string() + " 2>&1";
  std::string out;
  if (FILE* p = popen(cmd.c_str(), "r")) {
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
  }
  return out;
}

TEST(ZipWriter, DeflatedEntriesInOrderThatAnotherReaderChecks) {
  aorta::testing::TempDir dir;
  std::string page(200000, 'a');  // compresses well: deflate must make it much smaller
  auto html = dir.write("r.html", page);
  auto log = dir.write("r_html/log.html", "<pre>stage log</pre>\n");
  auto zip = dir.path() / "bundle.zip";
  ASSERT_TRUE(write_zip(zip, {{"r.html", html}, {"r_html/log.html", log}}));
  // 8: ZIP_DEFLATED in Python's zipfile.
  EXPECT_EQ(python_listing(zip), "r.html 200000 8\nr_html/log.html 21 8\n");
  EXPECT_LT(std::filesystem::file_size(zip), 5000u);
}

// A link planted in the report folder is not followed into the bundle, and a failed
// bundle leaves the earlier one as it was.
TEST(ZipWriter, LinkRefusedAndEarlierBundleKept) {
  aorta::testing::TempDir dir;
  auto html = dir.write("r.html", "report");
  auto zip = dir.path() / "bundle.zip";
  ASSERT_TRUE(write_zip(zip, {{"r.html", html}}));
  auto before = python_listing(zip);
  std::filesystem::create_symlink("/etc/passwd", dir.path() / "secret.html");
  Status s = write_zip(zip, {{"r.html", html}, {"secret.html", dir.path() / "secret.html"}});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("secret.html is not a regular file"), std::string::npos) << s.error().describe();
  EXPECT_EQ(python_listing(zip), before);
}

// Where the bundle cannot be created (its folder is a file: fails for root too).
TEST(ZipWriter, UncreatableBundleIsNamed) {
  aorta::testing::TempDir dir;
  auto html = dir.write("r.html", "report");
  auto not_a_folder = dir.write("file", "x");
  Status s = write_zip(not_a_folder / "bundle.zip", {{"r.html", html}});
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().describe().find("file/bundle.zip"), std::string::npos) << s.error().describe();
}

// Issue 42, 9 (probe 12): entry names with "/" only, and none that climbs out once
// "\\" is read as a separator or Windows drops trailing dots and spaces; the names
// as Python's zipfile reads them back, each worked out by hand.
TEST(ZipWriter, EveryEntryNameIsPortable) {
  aorta::testing::TempDir dir;
  auto file = dir.write("f", "x");
  const std::vector<std::pair<std::string, std::string>> names = {
      {"aorta_single_html/config_a\\..\\..\\pwned.json", "aorta_single_html/config_a_.._.._pwned.json"},
      {"../up/../x", "__/up/__/x"},
      {"/abs//./x", "abs/_/x"},
      {"C:\\Windows\\x.ini", "C__Windows_x.ini"},
      {"a/.. /b. /c...", "a/___/b__/c___"},
      {"s/file.txt:stream", "s/file.txt_stream"},
      {std::string("ctl\x01\x7f<>|*?\"q"), "ctl________q"},
  };
  std::vector<std::pair<std::string, std::filesystem::path>> entries;
  std::string expected;
  for (const auto& [name, portable] : names) {
    EXPECT_EQ(portable_entry_name(name), portable) << name;
    entries.emplace_back(name, file);
    expected += portable + " 1 8\n";
  }
  auto zip = dir.path() / "b.zip";
  ASSERT_TRUE(write_zip(zip, entries));
  EXPECT_EQ(python_listing(zip), expected);
}

}  // namespace
}  // namespace aorta::report
