#include "redact/redact_file.h"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "redact/known_secrets.h"
#include "tests/temp_dir.h"

namespace aorta::redact {
namespace {

std::string read_all(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A node's log as the run keeps it: lines with secrets, a known value echoed, and a
// progress line of megabytes without a newline with a secret near its end.
TEST(RedactFile, ReplacesTheFileWithItsRedactedText) {
  aorta::testing::TempDir dir;
  forget_known_secrets();
  ASSERT_TRUE(add_known_secret("Kn0wn-v4lue"));
  std::string progress(size_t{3} << 20, '#');
  const std::string input = "step 1 loss 2.3\nexport HF_TOKEN=abc123 && train\nlogged in as Kn0wn-v4lue\n" + progress +
                            " curl -u bob:hunter2x\nlast line without newline: password: x";
  const std::string expected = "step 1 loss 2.3\nexport HF_TOKEN=<redacted> && train\nlogged in as <redacted>\n" + progress +
                               " curl -u bob:<redacted>\nlast line without newline: password: <redacted>";
  auto file = dir.write("benchmark-node-0.log", input);
  auto redacted = redact_file_in_place(file);
  ASSERT_TRUE(redacted) << redacted.error().describe();
  forget_known_secrets();
  EXPECT_TRUE(read_all(file) == expected);
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);  // no temporary file left
}

// What is not a regular file is refused, not read: a FIFO would block, a link could
// point anywhere. The error names the file.
TEST(RedactFile, RefusesWhatIsNotARegularFile) {
  aorta::testing::TempDir dir;
  const auto fifo = dir.path() / "rccl-node-0.log";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto refused = redact_file_in_place(fifo);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().describe(), fifo.string() + ": not redacted: it is a FIFO, not a regular file");
  auto target = dir.write("elsewhere.txt", "password=hunter2x\n");
  const auto link = dir.path() / "benchmark-node-1.log";
  std::filesystem::create_symlink(target, link);
  EXPECT_FALSE(redact_file_in_place(link));
  EXPECT_EQ(read_all(target), "password=hunter2x\n");
  auto missing = redact_file_in_place(dir.path() / "missing.log");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().describe().find("missing.log: could not open it to redact"), std::string::npos);
}

}  // namespace
}  // namespace aorta::redact
