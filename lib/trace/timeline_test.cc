// The interval arithmetic and the gpu_timeline breakdown, checked against the
// worked example of reference B.6 (numbers computed by hand there).
#include "trace/timeline.h"

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::trace {
namespace {

TEST(Intervals, MergeJoinsOverlappingAndTouching) {
  Intervals m = merge_intervals({{5, 15}, {0, 10}, {15, 20}, {30, 40}, {31, 32}});
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0], Interval(0, 20));
  EXPECT_EQ(m[1], Interval(30, 40));
}

TEST(Intervals, SubtractAndIntersect) {
  Intervals comp = {{0, 15}, {30, 40}};
  Intervals comm = {{12, 35}};
  Intervals exposed = subtract_intervals(comm, comp);
  ASSERT_EQ(exposed.size(), 1u);
  EXPECT_EQ(exposed[0], Interval(15, 30));
  Intervals both = intersect_intervals(comp, comm);
  ASSERT_EQ(both.size(), 2u);
  EXPECT_DOUBLE_EQ(total_length(both), 8);
  EXPECT_TRUE(subtract_intervals(comm, {{0, 100}}).empty());
  EXPECT_DOUBLE_EQ(total_length(subtract_intervals({{0, 10}, {20, 30}}, {{5, 25}})), 10);
}

// Reference B.6: compute Cijk [0,10] [30,40] + elementwise [5,15]; comm [12,35];
// memcpy [38,50] [55,60]. Expected by hand: computation 25, total comm 23, exposed
// comm 15, total memcpy 17, exposed memcpy 15, busy 55, total 60, idle 5, overlap 8.
const char* kWorkedExample = R"J({"traceEvents": [
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":0,"dur":10},
  {"ph":"X","cat":"kernel","name":"Cijk_Alik_Bljk","pid":0,"tid":7,"ts":30,"dur":10},
  {"ph":"X","cat":"kernel","name":"elementwise_kernel","pid":0,"tid":8,"ts":5,"dur":10},
  {"ph":"X","cat":"kernel","name":"ncclDevKernel_Generic_4(ncclDevKernelArgsStorage<4096ul>)","pid":0,"tid":20,"ts":12,"dur":23},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy DtoD","pid":0,"tid":9,"ts":38,"dur":12},
  {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":9,"ts":55,"dur":5}
]})J";

TEST(GpuTimeline, WorkedExampleByHand) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("t.json", kWorkedExample));
  ASSERT_TRUE(data.ok()) << data.error().describe();
  Breakdown b = gpu_breakdown(*data, KernelSelection::kIncludeUnlinked);
  EXPECT_EQ(b.selected_events, 6u);
  EXPECT_DOUBLE_EQ(b.computation_time, 25);
  EXPECT_DOUBLE_EQ(b.total_comm_time, 23);
  EXPECT_DOUBLE_EQ(b.exposed_comm_time, 15);
  EXPECT_DOUBLE_EQ(b.total_memcpy_time, 17);
  EXPECT_DOUBLE_EQ(b.exposed_memcpy_time, 15);
  EXPECT_DOUBLE_EQ(b.busy_time, 55);
  EXPECT_DOUBLE_EQ(b.total_time, 60);
  EXPECT_DOUBLE_EQ(b.idle_time, 5);
  EXPECT_DOUBLE_EQ(b.comp_comm_overlap_time, 8);
  // TraceLens's invariant: the priority partition adds up to the total.
  EXPECT_DOUBLE_EQ(b.computation_time + b.exposed_comm_time + b.exposed_memcpy_time + b.idle_time, b.total_time);
  // Nothing is linked in this trace (no runtime launches, no flows).
  EXPECT_EQ(gpu_breakdown(*data, KernelSelection::kLinkedOnly).selected_events, 0u);
}

// Issue 9's synthetic cases, worked out by hand: communication fully under compute,
// not at all under compute, and half under compute.
TEST(GpuTimeline, OverlapFullZeroAndPartial) {
  aorta::testing::TempDir dir;
  struct Case {
    const char* name;
    const char* events;
    double overlap_time;
    double total_comm;
    double exposed_comm;
  };
  const Case cases[] = {
      {"full", R"([{"cat":"kernel","name":"gemm","pid":0,"tid":1,"ts":0,"dur":100},
                    {"cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":2,"ts":10,"dur":50}])", 50, 50, 0},
      {"zero", R"([{"cat":"kernel","name":"gemm","pid":0,"tid":1,"ts":0,"dur":40},
                    {"cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":2,"ts":40,"dur":60}])", 0, 60, 60},
      {"half", R"([{"cat":"kernel","name":"gemm","pid":0,"tid":1,"ts":0,"dur":40},
                    {"cat":"kernel","name":"ncclDevKernel_AllReduce","pid":0,"tid":2,"ts":20,"dur":40}])", 20, 40, 20},
  };
  for (const auto& c : cases) {
    auto data = read_trace(dir.write(std::string(c.name) + ".json", c.events));
    ASSERT_TRUE(data.ok()) << c.name;
    Breakdown b = gpu_breakdown(*data, KernelSelection::kIncludeUnlinked);
    EXPECT_DOUBLE_EQ(b.comp_comm_overlap_time, c.overlap_time) << c.name;
    EXPECT_DOUBLE_EQ(b.total_comm_time, c.total_comm) << c.name;
    EXPECT_DOUBLE_EQ(b.exposed_comm_time, c.exposed_comm) << c.name;
    EXPECT_DOUBLE_EQ(b.comp_comm_overlap_time, b.total_comm_time - b.exposed_comm_time) << c.name;
  }
}

// The link rule (reference B.3): a kernel counts only when a runtime launch's
// correlation has an ac2g start and end and the end's (pid, tid, id) names it.
TEST(GpuTimeline, LinkRuleSelectsOnlyFlowLinkedKernels) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("t.json", R"({"traceEvents": [
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":0,"dur":1,"args":{"correlation":1}},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":1,"pid":100,"tid":100,"ts":0},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":1,"pid":0,"tid":7,"ts":10,"bp":"e"},
    {"ph":"X","cat":"kernel","name":"linked","pid":0,"tid":7,"ts":10,"dur":5,"args":{"correlation":1}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":1,"dur":1,"args":{"correlation":2}},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":2,"pid":0,"tid":7,"ts":20,"bp":"e"},
    {"ph":"X","cat":"kernel","name":"no_flow_start","pid":0,"tid":7,"ts":20,"dur":5,"args":{"correlation":2}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":100,"tid":100,"ts":2,"dur":1,"args":{"correlation":3}},
    {"ph":"s","cat":"ac2g","name":"ac2g","id":3,"pid":100,"tid":100,"ts":2},
    {"ph":"f","cat":"ac2g","name":"ac2g","id":3,"pid":100,"tid":100,"ts":2,"bp":"e"},
    {"ph":"X","cat":"kernel","name":"flow_ends_on_cpu","pid":0,"tid":7,"ts":30,"dur":5,"args":{"correlation":3}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaGraphLaunch","pid":100,"tid":100,"ts":3,"dur":1,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"graph_a","pid":0,"tid":8,"ts":40,"dur":5,"args":{"correlation":4}},
    {"ph":"X","cat":"kernel","name":"graph_b","pid":0,"tid":9,"ts":41,"dur":5,"args":{"correlation":4}}
  ]})"));
  ASSERT_TRUE(data.ok()) << data.error().describe();
  ASSERT_TRUE(data->link_by_correlation.has_value());
  EXPECT_TRUE(*data->link_by_correlation);
  std::vector<bool> selected = select_gpu_events(*data, KernelSelection::kLinkedOnly);
  ASSERT_EQ(selected.size(), 5u);
  EXPECT_TRUE(selected[0]);   // linked
  EXPECT_FALSE(selected[1]);  // no "s" for its correlation
  EXPECT_FALSE(selected[2]);  // its "f" sits on the CPU thread
  EXPECT_TRUE(selected[3]);   // graph launch links every kernel of the graph
  EXPECT_TRUE(selected[4]);
  EXPECT_EQ(gpu_breakdown(*data, KernelSelection::kLinkedOnly).selected_events, 3u);
  EXPECT_EQ(gpu_breakdown(*data, KernelSelection::kIncludeUnlinked).selected_events, 5u);
}

TEST(GpuTimeline, ExternalIdKeysLinksWhenTheFirstLaunchHasNoCorrelation) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("t.json", R"([
    {"ph":"X","cat":"cuda_runtime","name":"hipLaunchKernel","pid":1,"tid":1,"ts":0,"dur":1,"args":{"External id":9}},
    {"ph":"s","cat":"ac2g","id":9,"pid":1,"tid":1,"ts":0},
    {"ph":"f","cat":"ac2g","id":9,"pid":0,"tid":3,"ts":5},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":3,"ts":5,"dur":2,"args":{"External id":9,"correlation":77}}
  ])"));
  ASSERT_TRUE(data.ok());
  EXPECT_FALSE(*data->link_by_correlation);
  EXPECT_TRUE(select_gpu_events(*data, KernelSelection::kLinkedOnly)[0]);
}

TEST(GpuTimeline, WithoutALaunchEventLinksGoByExternalId) {
  // No runtime event is named "*launch*", so nothing decides the key: TraceLens's
  // default, External id, links the copy; its correlation (6) links nothing.
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("t.json", R"([
    {"ph":"X","cat":"gpu_memcpy","name":"Memcpy HtoD","pid":0,"tid":3,"ts":5,"dur":2,"args":{"External id":5,"correlation":6}},
    {"ph":"X","cat":"cuda_runtime","name":"cudaMemcpyAsync","pid":1,"tid":1,"ts":0,"dur":1,"args":{"External id":5,"correlation":6}},
    {"ph":"s","cat":"ac2g","id":5,"pid":1,"tid":1,"ts":0},
    {"ph":"f","cat":"ac2g","id":5,"pid":0,"tid":3,"ts":5},
    {"ph":"X","cat":"kernel","name":"k","pid":0,"tid":3,"ts":9,"dur":2,"args":{"External id":7,"correlation":5}}
  ])"));
  ASSERT_TRUE(data.ok());
  EXPECT_FALSE(data->link_by_correlation.has_value());
  std::vector<bool> selected = select_gpu_events(*data, KernelSelection::kLinkedOnly);
  ASSERT_EQ(selected.size(), 2u);
  EXPECT_TRUE(selected[0]);
  EXPECT_FALSE(selected[1]);
}

}  // namespace
}  // namespace aorta::trace
