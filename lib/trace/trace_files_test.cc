#include "trace/trace_files.h"

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::trace {
namespace {

TEST(TraceFiles, RankFromPathForms) {
  EXPECT_EQ(rank_from_path("out/torch_profiler/rank3/host_1.2.pt.trace.json"), 3);
  EXPECT_EQ(rank_from_path("traces/trace_rank_12.json"), 12);
  EXPECT_EQ(rank_from_path("x/worker7.json"), 7);
  EXPECT_EQ(rank_from_path("x/gpu_5.json.gz"), 5);
  EXPECT_EQ(rank_from_path("RANK-2/t.json"), 2);
  // The file name wins over directories; rank wins over worker and gpu.
  EXPECT_EQ(rank_from_path("rank1/trace_rank4.json"), 4);
  EXPECT_EQ(rank_from_path("gpu9/worker2/rank_6.json"), 6);
  EXPECT_FALSE(rank_from_path("frank1/host.json").has_value());
  EXPECT_FALSE(rank_from_path("out/host_1234.pt.trace.json").has_value());
}

TEST(TraceFiles, TorchProfilerTreesWinOverOtherJson) {
  aorta::testing::TempDir dir;
  dir.write("aorta_benchmark_report.json", "{}");
  dir.write("combined_traces/node_0/out/torch_profiler/rank0/a.pt.trace.json", "[]");
  dir.write("combined_traces/node_1/out/torch_profiler/rank1/b.pt.trace.json.gz", "");
  dir.write("combined_traces/node_1/out/rank_01_metrics.jsonl", "");
  dir.write(".cvs-aorta/x/torch_profiler/rank9/c.json", "[]");
  auto files = find_trace_files(dir.path());
  ASSERT_EQ(files.size(), 2u);
  EXPECT_EQ(files[0].filename(), "a.pt.trace.json");
  EXPECT_EQ(files[1].filename(), "b.pt.trace.json.gz");
  aorta::testing::TempDir flat;
  flat.write("r0.json", "[]");
  flat.write("r1.json.gz", "");
  flat.write("notes.txt", "");
  EXPECT_EQ(find_trace_files(flat.path()).size(), 2u);
}

}  // namespace
}  // namespace aorta::trace
