// Issue 21, part 3: one plain file split across threads reads as a whole read does.
#include "trace/trace_reader.h"

#include <gtest/gtest.h>

#include "tests/gunzip.h"
#include "tests/temp_dir.h"
#include "trace/event_scanner.h"
#include "trace/timeline.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::trace {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

using aorta::testing::gunzip;

struct Read {
  TraceData data;
  Breakdown breakdown;
  std::vector<bool> selected;
};

Read read_split(const std::filesystem::path& file, unsigned parts, uint64_t min_part_bytes = 1) {
  auto data = read_trace(file, BasicScanMode::kSkip, {}, TraceSplit{parts, min_part_bytes});
  EXPECT_TRUE(data.ok()) << data.error().describe();
  if (!data.ok()) return {};
  Read r{std::move(*data), {}, {}};
  r.breakdown = gpu_breakdown(r.data, KernelSelection::kLinkedOnly);
  r.selected = select_gpu_events(r.data, KernelSelection::kLinkedOnly);
  return r;
}

void expect_same_steps(const TraceData& a, const TraceData& b, const std::string& what) {
  ASSERT_EQ(a.steps.size(), b.steps.size()) << what;
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].number, b.steps[i].number) << what;
    EXPECT_EQ(a.steps[i].ts, b.steps[i].ts) << what;
    EXPECT_EQ(a.steps[i].dur, b.steps[i].dur) << what;
  }
}

void expect_same(const Read& a, const Read& b, const std::string& what) {
  EXPECT_EQ(a.data.events, b.data.events) << what;
  EXPECT_EQ(a.data.bytes, b.data.bytes) << what;
  EXPECT_EQ(a.data.rank, b.data.rank) << what;
  EXPECT_EQ(a.data.world_size, b.data.world_size) << what;
  EXPECT_EQ(a.data.legacy_array, b.data.legacy_array) << what;
  EXPECT_EQ(a.data.link_by_correlation, b.data.link_by_correlation) << what;
  EXPECT_EQ(a.data.negative_durations, b.data.negative_durations) << what;
  ASSERT_EQ(a.data.gpu_events.size(), b.data.gpu_events.size()) << what;
  for (size_t i = 0; i < a.data.gpu_events.size(); ++i) {
    EXPECT_EQ(a.data.gpu_events[i].ts, b.data.gpu_events[i].ts);
    EXPECT_EQ(a.data.gpu_events[i].end, b.data.gpu_events[i].end);
    EXPECT_EQ(a.data.gpu_events[i].cls, b.data.gpu_events[i].cls);
    EXPECT_EQ(a.data.gpu_events[i].kind, b.data.gpu_events[i].kind);
    EXPECT_EQ(a.data.gpu_events[i].collective, b.data.gpu_events[i].collective);
  }
  EXPECT_EQ(a.data.collectives, b.data.collectives) << what;
  ASSERT_EQ(a.data.keyed_events.size(), b.data.keyed_events.size()) << what;
  for (size_t i = 0; i < a.data.keyed_events.size(); ++i) {
    EXPECT_EQ(a.data.keyed_events[i].thread, b.data.keyed_events[i].thread);
    EXPECT_EQ(a.data.keyed_events[i].key, b.data.keyed_events[i].key);
    EXPECT_EQ(a.data.keyed_events[i].gpu_index, b.data.keyed_events[i].gpu_index);
  }
  ASSERT_EQ(a.data.runtime_launches.size(), b.data.runtime_launches.size()) << what;
  for (size_t i = 0; i < a.data.runtime_launches.size(); ++i) {
    EXPECT_EQ(a.data.runtime_launches[i].correlation, b.data.runtime_launches[i].correlation);
    EXPECT_EQ(a.data.runtime_launches[i].ts, b.data.runtime_launches[i].ts);
  }
  for (size_t i = 0; i < a.data.gpu_events.size(); ++i)
    EXPECT_EQ(a.data.gpu_events[i].correlation, b.data.gpu_events[i].correlation);
  expect_same_steps(a.data, b.data, what);
  EXPECT_TRUE(std::equal(a.data.flow_starts.begin(), a.data.flow_starts.end(), b.data.flow_starts.begin(),
                         b.data.flow_starts.end()))
      << what;
  ASSERT_EQ(a.data.flow_ends.size(), b.data.flow_ends.size()) << what;
  for (size_t i = 0; i < a.data.flow_ends.size(); ++i) {
    EXPECT_EQ(a.data.flow_ends[i].id, b.data.flow_ends[i].id);
    EXPECT_EQ(a.data.flow_ends[i].thread, b.data.flow_ends[i].thread);
  }
  EXPECT_EQ(a.selected, b.selected) << what;
  EXPECT_EQ(a.breakdown.selected_events, b.breakdown.selected_events) << what;
  // Bit for bit: the same doubles, not nearly the same.
  EXPECT_EQ(a.breakdown.computation_time, b.breakdown.computation_time) << what;
  EXPECT_EQ(a.breakdown.total_comm_time, b.breakdown.total_comm_time) << what;
  EXPECT_EQ(a.breakdown.exposed_comm_time, b.breakdown.exposed_comm_time) << what;
  EXPECT_EQ(a.breakdown.total_memcpy_time, b.breakdown.total_memcpy_time) << what;
  EXPECT_EQ(a.breakdown.busy_time, b.breakdown.busy_time) << what;
  EXPECT_EQ(a.breakdown.total_time, b.breakdown.total_time) << what;
}

TEST(TraceSplit, EveryShippedTraceReadsAsAWholeReadInAnyNumberOfParts) {
  aorta::testing::TempDir dir;
  for (const auto& entry : std::filesystem::directory_iterator(kData)) {
    const std::string name = entry.path().filename().string();
    if (!name.ends_with(".json.gz")) continue;
    auto plain = dir.write(name.substr(0, name.size() - 3), gunzip(entry.path()));
    const Read whole = read_split(plain, 1);
    EXPECT_EQ(whole.data.parts, 1u);
    for (unsigned parts : {2u, 3u, 7u, 16u}) {
      const Read split = read_split(plain, parts, 4096);
      // As many parts as asked, where the file holds that many 4 KiB shares.
      EXPECT_EQ(split.data.parts, std::min<uint64_t>(parts, std::filesystem::file_size(plain) / 4096)) << name;
      expect_same(whole, split, name + " in " + std::to_string(parts) + " parts");
    }
  }
  // The default smallest part (8 MiB): the 29 MB trace splits in two, a 1 MB one not.
  auto big = dir.path() / "h200-aorta-overlap_rank0.pt.trace.json";
  EXPECT_EQ(read_split(big, 2, TraceSplit{}.min_part_bytes).data.parts, 2u);
  EXPECT_EQ(read_split(dir.path() / "h200-torch2.11-kineto-nccl_rank0.json", 2, TraceSplit{}.min_part_bytes).data.parts,
            1u);
}

// A trace of `part1`'s events, a padding event, then `part2`'s, sized so that a split
// in two falls inside the padding: part 2 starts with part2's first event.
std::string two_part_trace(const std::vector<std::string>& part1, const std::vector<std::string>& part2) {
  auto pad = [](size_t n) {
    return R"({"ph":"X","cat":"user_annotation","name":")" + std::string(n, 'p') + R"(","pid":1,"tid":1,"ts":0,"dur":1})";
  };
  auto join = [](const std::vector<std::string>& events) {
    std::string out;
    for (const auto& e : events) out += (out.empty() ? "" : ",\n") + e;
    return out;
  };
  const std::string head = "{\"traceEvents\": [\n";
  const std::string tail = "\n]}\n";
  const std::string before = head + join(part1) + ",\n";  // up to the first padding event
  const std::string pad1 = pad(1100);
  // The second padding puts the split's target (half the file) inside the first
  // padding event.
  const std::string rest0 = ",\n" + join(part2) + ",\n" + pad(0) + tail;
  const size_t size = 2 * (before.size() + 1000);
  EXPECT_GT(size, before.size() + pad1.size() + rest0.size());
  const std::string text =
      before + pad1 + ",\n" + join(part2) + ",\n" + pad(size - before.size() - pad1.size() - rest0.size()) + tail;
  const size_t target = text.size() / 2;  // plan_parts: the size over the parts, times k
  EXPECT_GT(target, before.size() + 100);
  EXPECT_LT(target, before.size() + pad1.size() - 100);
  return text;
}

// The rules that span parts, with the split in the middle of a padding event so that
// part 2 starts at "other" (numbers worked by hand below).
TEST(TraceSplit, FileOrderRulesHoldAcrossTheSplit) {
  const std::vector<std::string> part1 = {
      // The file's first launch has no correlation: the file links by External id.
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":0,"dur":1,"args":{"External id":7}})",
      R"({"ph":"s","cat":"ac2g","id":7,"pid":1,"tid":7,"ts":0})",
      R"({"ph":"X","cat":"kernel","name":"k_first","pid":"gpu0","tid":7,"ts":10,"dur":10,"args":{"External id":7,"correlation":70}})",
      R"({"ph":"f","cat":"ac2g","id":7,"pid":"gpu0","tid":7,"ts":100,"bp":"e"})",
  };
  const std::vector<std::string> part2 = {
      // A string pid seen first here: "gpu0" is this part's second string, the file's first.
      R"({"ph":"X","cat":"cpu_op","name":"x","pid":"other","tid":7,"ts":0,"dur":1})",
      // This part's first launch has a correlation; it must not decide the key.
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":1,"dur":1,"args":{"correlation":90,"External id":9}})",
      // The same (pid, tid, External id) as k_first: the last in the file wins.
      R"({"ph":"X","cat":"kernel","name":"k_last","pid":"gpu0","tid":7,"ts":100,"dur":100,"args":{"External id":7,"correlation":71}})",
  };
  const std::string text = two_part_trace(part1, part2);
  aorta::testing::TempDir dir;
  auto file = dir.write("boundary.json", text);
  const Read whole = read_split(file, 1);
  const Read split = read_split(file, 2);
  ASSERT_EQ(split.data.parts, 2u);
  // By hand: link by External id (the first launch); the flow 7 ends on ("gpu0", 7),
  // whose last event with key 7 is k_last: one kernel, 100 us, from 100 to 200.
  for (const Read* r : {&whole, &split}) {
    EXPECT_EQ(r->data.link_by_correlation, std::optional<bool>(false));
    EXPECT_EQ(r->breakdown.selected_events, 1u);
    EXPECT_EQ(r->breakdown.computation_time, 100.0);
    EXPECT_EQ(r->breakdown.total_time, 100.0);
    EXPECT_EQ(r->selected, (std::vector<bool>{false, true}));
  }
  expect_same(whole, split, "boundary");
  // Every other split point too: 2 to 12 parts of a file of 13 events.
  for (unsigned parts = 3; parts <= 12; ++parts) {
    const Read r = read_split(file, parts);
    EXPECT_GT(r.data.parts, 1u) << parts;
    expect_same(whole, r, std::to_string(parts) + " parts");
  }
}

// A part without a launch keeps every keyed event's thread until the merge, also of
// events whose key the file's first launch rules out: a whole read never sees those
// threads. The records still come out the same, thread numbers included.
TEST(TraceSplit, ThreadsSeenOnlyBeforeAPartsDecisionDoNotReorderTheRecords) {
  const std::vector<std::string> part1 = {
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":7,"ts":0,"dur":1,"args":{"correlation":5}})",
  };
  const std::vector<std::string> part2 = {
      R"({"ph":"X","cat":"cpu_op","name":"e1","pid":3,"tid":3,"ts":1,"dur":1,"args":{"External id":4}})",
      R"({"ph":"X","cat":"cpu_op","name":"e2","pid":2,"tid":2,"ts":2,"dur":1,"args":{"correlation":10}})",
      R"({"ph":"X","cat":"cpu_op","name":"e3","pid":3,"tid":3,"ts":3,"dur":1,"args":{"correlation":11}})",
  };
  aorta::testing::TempDir dir;
  auto file = dir.write("threads.json", two_part_trace(part1, part2));
  const Read whole = read_split(file, 1);
  const Read split = read_split(file, 2);
  ASSERT_EQ(split.data.parts, 2u);
  // By hand: linked by correlation; keyed events 5 on (1,7), 10 on (2,2), 11 on (3,3);
  // e1 has no correlation and is no record.
  std::vector<int64_t> keys;
  for (const auto& k : whole.data.keyed_events) keys.push_back(k.key);
  EXPECT_EQ(keys, (std::vector<int64_t>{5, 10, 11}));
  expect_same(whole, split, "threads");
}

TEST(TraceSplit, SplitGuessedInsideAStringFallsBackToTheWholeRead) {
  // The middle of the file is inside a name that looks like an element boundary.
  const std::string fake = std::string(3000, 'a') + "},\\n{" + std::string(3000, 'b') + "}, {" + std::string(3000, 'c');
  const std::string text = R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":1,"ts":0,"dur":5},
    {"ph":"X","cat":"user_annotation","name":")" + fake + R"(","pid":0,"tid":1,"ts":0,"dur":5}]})";
  aorta::testing::TempDir dir;
  auto file = dir.write("fake.json", text);
  const Read split = read_split(file, 2);
  EXPECT_EQ(split.data.parts, 1u);  // read whole after the guess failed
  EXPECT_EQ(split.data.events, 2u);
  EXPECT_EQ(split.data.gpu_events.size(), 1u);
}

// A part before another must end between two elements, after their ','; anywhere
// else (inside a string or an event, or past the array) the split guess was wrong.
TEST(TraceSplit, PartThatDoesNotEndBetweenElementsIsRefused) {
  const std::string a = R"({"ph":"X","cat":"kernel","name":"a}, {b","pid":0,"tid":1,"ts":0,"dur":5})";
  const std::string text = R"({"traceEvents": [)" + a + ",\n" + a + "], \"x\": 1}";
  aorta::testing::TempDir dir;
  auto file = dir.write("parts.json", text);
  ScanCallbacks none;
  none.on_events = [](const EventBatch&) { return ok_status(); };
  auto ends_at = [&](uint64_t end) { return scan_trace_part(file, none, {}, kDefaultMaxTokenBytes, ScanPart{0, end, false}); };
  const uint64_t second = text.find('{', 17 + a.size());
  auto good = ends_at(second);
  ASSERT_TRUE(good.ok()) << good.error().describe();
  EXPECT_EQ(good->events, 1u);
  const uint64_t in_string = text.find("{b");  // looks like an element: "}, {"
  for (uint64_t end : {in_string, second - 2 /* before the ',' */, uint64_t{20} /* inside the event */,
                       static_cast<uint64_t>(text.size() - 3) /* past the array */}) {
    auto bad = ends_at(end);
    ASSERT_FALSE(bad.ok()) << end;
    EXPECT_NE(bad.error().message.find("byte " + std::to_string(end) + " is not the start of a traceEvents element"),
              std::string::npos)
        << bad.error().message;
  }
  // The part after a good split point reads the rest, to the end of the file.
  auto rest = scan_trace_part(file, none, {}, kDefaultMaxTokenBytes, ScanPart{second, UINT64_MAX, false});
  ASSERT_TRUE(rest.ok()) << rest.error().describe();
  EXPECT_EQ(rest->events, 1u);
  EXPECT_EQ(rest->bytes, text.size() - second);
}

TEST(TraceSplit, DamagedSplitFileReportsWhatAWholeReadReports) {
  aorta::testing::TempDir dir;
  std::string text = gunzip(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  text[text.find("\"ph\"", text.size() * 3 / 4)] = '}';  // in the last part
  auto file = dir.write("damaged.json", text);
  auto whole = read_trace(file, BasicScanMode::kSkip);
  auto split = read_trace(file, BasicScanMode::kSkip, {}, TraceSplit{4, 4096});
  ASSERT_FALSE(whole.ok());
  ASSERT_FALSE(split.ok());
  EXPECT_EQ(split.error().message, whole.error().message);
  EXPECT_EQ(split.error().context, whole.error().context);
  auto truncated = dir.write("truncated.json", text.substr(0, text.size() / 2));
  auto cut_whole = read_trace(truncated, BasicScanMode::kSkip);
  auto cut_split = read_trace(truncated, BasicScanMode::kSkip, {}, TraceSplit{4, 4096});
  ASSERT_FALSE(cut_split.ok());
  EXPECT_EQ(cut_split.error().message, cut_whole.error().message);
}

}  // namespace
}  // namespace aorta::trace

// The original's peak_memory_gb: the largest args."Total Allocated" of Kineto's
// [memory] events (profile_memory=True), in a whole read and in one split in three.
namespace aorta::trace {
namespace {

TEST(PeakMemory, LargestTotalAllocatedInAWholeOrASplitRead) {
  aorta::testing::TempDir dir;
  std::string events;
  // 1 GiB, then 3 GiB in the middle, then 2 GiB; a string, a negative number and a
  // non-memory event's args count for nothing.
  for (double gib : {1.0, 3.0, 2.0}) {
    for (int i = 0; i < 40; ++i)
      events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(i * 10) +
                R"(,"dur":5,"args":{"correlation":1}},)" "\n";
    events += R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Total Allocated":)" +
              std::to_string(static_cast<int64_t>(gib * 1024 * 1024 * 1024)) + R"(,"Bytes":512}},)" "\n";
  }
  events += R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":6,"args":{"Total Allocated":"9999999999999"}},)" "\n";
  events += R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":7,"args":{"Total Allocated":-5}})";
  const auto file = dir.write("memory.json", "{\"traceEvents\": [\n" + events + "\n]}");
  for (unsigned parts : {1u, 3u}) {
    auto data = read_trace(file, BasicScanMode::kSkip, {}, TraceSplit{parts, 1});
    ASSERT_TRUE(data.ok()) << data.error().describe();
    EXPECT_EQ(data->parts, parts);
    ASSERT_TRUE(data->peak_allocated_bytes.has_value());
    EXPECT_EQ(*data->peak_allocated_bytes, 3.0 * 1024 * 1024 * 1024) << parts << " part(s)";
  }
  const auto none = dir.write("none.json", R"({"traceEvents": [{"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":1,"dur":5}]})");
  auto data = read_trace(none);
  ASSERT_TRUE(data.ok());
  EXPECT_FALSE(data->peak_allocated_bytes.has_value());
}

// The GPU's index, args.device of the GPU events, whole and split: one device is
// kept; a second device anywhere (here in the last part) marks the trace mixed; a
// string or negative device counts for nothing.
TEST(GpuDevice, OneDeviceIsKeptAndTwoAreMixed) {
  aorta::testing::TempDir dir;
  auto trace_of = [](int last_device) {
    std::string events;
    for (int i = 0; i < 120; ++i)
      events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":)" + std::to_string(i * 10) +
                R"(,"dur":5,"args":{"device":)" + std::to_string(i == 119 ? last_device : 3) + "}},\n";
    events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2000,"dur":5,"args":{"device":"9"}},)" "\n";
    events += R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":2010,"dur":5,"args":{"device":-1}})";
    return "{\"traceEvents\": [\n" + events + "\n]}";
  };
  const auto one = dir.write("one.json", trace_of(3));
  const auto two = dir.write("two.json", trace_of(4));
  for (unsigned parts : {1u, 3u}) {
    auto a = read_trace(one, BasicScanMode::kSkip, {}, TraceSplit{parts, 1});
    ASSERT_TRUE(a.ok()) << a.error().describe();
    EXPECT_EQ(a->parts, parts);
    EXPECT_EQ(a->gpu_device, 3) << parts << " part(s)";
    EXPECT_FALSE(a->gpu_devices_mixed);
    auto b = read_trace(two, BasicScanMode::kSkip, {}, TraceSplit{parts, 1});
    ASSERT_TRUE(b.ok()) << b.error().describe();
    EXPECT_TRUE(b->gpu_devices_mixed) << parts << " part(s)";
  }
}

}  // namespace
}  // namespace aorta::trace
