#include "suites/cli.h"

#include <gtest/gtest.h>

namespace aorta::cli {
namespace {

TEST(Cli, RunOptionsAndGtestPassThrough) {
  Options o = parse({"--cluster_file", "c.json", "--config_file=v.json", "--output_dir", "out", "--gtest_filter=*single*"});
  EXPECT_TRUE(o.error.empty()) << o.error;
  EXPECT_EQ(o.command, Command::kRun);
  EXPECT_EQ(o.cluster_file, "c.json");
  EXPECT_EQ(o.config_file, "v.json");
  EXPECT_EQ(o.output_dir, "out");
  EXPECT_EQ(*gtest_filter(o.gtest_args), "*single*");
  EXPECT_FALSE(parse({"--bogus"}).error.empty());
  EXPECT_FALSE(parse({"--cluster_file"}).error.empty());
}

TEST(Cli, VersionStandsAlone) {
  EXPECT_EQ(parse({"--version"}).command, Command::kVersion);
  EXPECT_NE(parse({"--version", "--gtest_filter=*"}).command, Command::kVersion);
}

TEST(Cli, Subcommands) {
  EXPECT_EQ(parse({"list", "aorta_single"}).suite, "aorta_single");
  Options copy = parse({"config", "copy", "x.json", "--output", "y.json"});
  EXPECT_EQ(copy.command, Command::kConfigCopy);
  EXPECT_EQ(copy.output, "y.json");
  EXPECT_FALSE(parse({"config", "copy", "x.json"}).error.empty());
  Options a = parse({"analyze", "traces", "--jobs", "4", "--include-unlinked-kernels", "--output=o.json"});
  EXPECT_TRUE(a.error.empty());
  EXPECT_EQ(a.jobs, 4);
  EXPECT_TRUE(a.include_unlinked);
  EXPECT_EQ(a.trace_dir, "traces");
  EXPECT_FALSE(parse({"analyze"}).error.empty());
  EXPECT_FALSE(parse({"analyze", "t", "--jobs", "0"}).error.empty());
  EXPECT_EQ(parse({"analyze", "t"}).jobs, 0);  // one per core
  EXPECT_EQ(parse({"--help"}).command, Command::kHelp);
}

TEST(Cli, GtestFilterSemantics) {
  EXPECT_TRUE(filter_matches("*distributed*", "aorta_distributed.test_setup_rdma"));
  EXPECT_FALSE(filter_matches("*distributed*", "aorta_single.test_teardown"));
  EXPECT_TRUE(filter_matches("aorta_single.*:aorta_x.*", "aorta_single.test_teardown"));
  EXPECT_FALSE(filter_matches("*-*teardown", "aorta_single.test_teardown"));
  EXPECT_TRUE(filter_matches("-*teardown", "aorta_single.test_analyze"));
  EXPECT_TRUE(filter_matches("aorta_single.test_?nalyze", "aorta_single.test_analyze"));
}

}  // namespace
}  // namespace aorta::cli
