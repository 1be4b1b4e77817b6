// The registry login's command as a node's shell runs it (issue 43, 7).
#include "job/registry_login.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "common/shell_quote.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

// Runs the login command under bash with HOME set, `docker` a function that keeps its
// stdin; returns what it was given.
std::string login_stdin(const config::Registry& r, const std::filesystem::path& home) {
  const std::filesystem::path got = home / "got";
  const std::string script = "docker() { cat > " + shell_quote(got.string()) + "; }; cd / && " +
                             registry_login_command(r, "docker");
  const std::string command = "HOME=" + shell_quote(home.string()) + " bash -c " + shell_quote(script);
  if (std::system(command.c_str()) != 0) return "<failed>";
  std::ifstream in(got);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Review of issue 43: CVS's unquoted `cat FILE` reads "~/token" in the SSH user's home;
// so does ours, every other character of the name still quoted.
TEST(RegistryLogin, APasswordFileUnderTildeIsInTheNodeUsersHome) {
  testing::TempDir home;
  home.write("my token", "pw-in-home");
  EXPECT_EQ(login_stdin({"robot", "~/my token", "reg.example"}, home.path()), "pw-in-home");
  EXPECT_EQ(login_stdin({"robot", (home.path() / "my token").string(), ""}, home.path()), "pw-in-home");
  home.write("$(touch pwned)", "odd");
  EXPECT_EQ(login_stdin({"robot", "~/$(touch pwned)", ""}, home.path()), "odd");
  EXPECT_FALSE(std::filesystem::exists("/pwned"));
  EXPECT_FALSE(std::filesystem::exists(home.path() / "pwned"));
}

}  // namespace
}  // namespace aorta::job
