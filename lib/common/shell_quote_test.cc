#include "common/shell_quote.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/temp_dir.h"

namespace aorta {
namespace {

TEST(ShellQuote, PlainWordsStayBare) {
  EXPECT_EQ(shell_quote("train.py"), "train.py");
  EXPECT_EQ(shell_quote("/mnt/config/a.yaml"), "/mnt/config/a.yaml");
  EXPECT_EQ(shell_quote("training.max_steps=15"), "training.max_steps=15");
}

TEST(ShellQuote, EverythingElseIsSingleQuoted) {
  EXPECT_EQ(shell_quote(""), "''");
  EXPECT_EQ(shell_quote("a b"), "'a b'");
  EXPECT_EQ(shell_quote("it's"), "'it'\\''s'");
  EXPECT_EQ(shell_quote("~root"), "'~root'");
}

// A real shell must read each hostile value back as exactly that text and run
// nothing: the canary file would exist if any of them executed.
TEST(ShellQuote, HostileValuesNeverExecute) {
  aorta::testing::TempDir dir;
  std::string canary = (dir.path() / "canary").string();
  const std::vector<std::string> hostile = {
      "$(touch " + canary + ")", "`touch " + canary + "`", "; touch " + canary, "a' ; touch " + canary + " ; '",
      "x\ntouch " + canary, "$HOME and ${PATH}", "\"quoted\" \\ back", "*", "a|b&c>d<e", "-n"};
  cluster::LocalTransport local;
  for (const auto& value : hostile) {
    auto r = local.run("localhost", "printf %s " + shell_quote(value), std::chrono::seconds(10));
    ASSERT_TRUE(r.ok());
    EXPECT_EQ(r->output, value);
  }
  EXPECT_FALSE(std::filesystem::exists(canary));
  EXPECT_EQ(shell_join({"echo", "a b", "c"}), "echo 'a b' c");
}

}  // namespace
}  // namespace aorta
