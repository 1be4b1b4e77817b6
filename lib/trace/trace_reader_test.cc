// The streaming reader on the real traces in tests/data and on damaged input.
#include "trace/trace_reader.h"

#include <zlib.h>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"
#include "trace/kernel_class.h"

namespace aorta::trace {
namespace {

const std::filesystem::path kData = AORTA_TEST_DATA_DIR;

std::string gunzip(const std::filesystem::path& file) {
  gzFile gz = gzopen(file.c_str(), "rb");
  std::string text;
  char buf[1 << 16];
  for (int n; (n = gzread(gz, buf, sizeof buf)) > 0;) text.append(buf, n);
  gzclose(gz);
  return text;
}

TEST(TraceReader, RealH200KinetoTraceStreamsAcrossChunks) {
  // 29 MB unzipped: several 4 MiB read chunks, events split across chunk ends.
  auto data = read_trace(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  ASSERT_TRUE(data.ok()) << data.error().describe();
  // Counts by Python's json.load of the same file: 98957 events, of which
  // 4356 kernel + 244 gpu_memcpy + 488 gpu_memset.
  EXPECT_EQ(data->events, 98957u);
  EXPECT_EQ(data->gpu_events.size(), 4356u + 244u + 488u);
  EXPECT_FALSE(data->legacy_array);
  ASSERT_TRUE(data->rank.has_value());
  EXPECT_EQ(*data->rank, 0);
  EXPECT_EQ(*data->world_size, 2);
  EXPECT_TRUE(*data->link_by_correlation);
  auto rank1 = read_trace(kData / "h200-aorta-overlap_rank1.pt.trace.json.gz");
  ASSERT_TRUE(rank1.ok());
  EXPECT_EQ(*rank1->rank, 1);
}

TEST(TraceReader, PlainAndGzipReadTheSame) {
  aorta::testing::TempDir dir;
  auto plain = dir.write("rank1.json", gunzip(kData / "h200-torch2.11-kineto-nccl_rank1.json.gz"));
  auto a = read_trace(plain);
  auto b = read_trace(kData / "h200-torch2.11-kineto-nccl_rank1.json.gz");
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->events, b->events);
  EXPECT_EQ(a->gpu_events.size(), b->gpu_events.size());
  EXPECT_EQ(a->bytes, b->bytes);
}

TEST(TraceReader, LegacyBareArrayFromDebianTorch) {
  auto data = read_trace(kData / "debian-torch1.13-gloo-legacy_rank0.json.gz");
  ASSERT_TRUE(data.ok()) << data.error().describe();
  EXPECT_TRUE(data->legacy_array);
  EXPECT_EQ(data->events, 564u);  // Python: len(json.load(...)) == 564
  EXPECT_TRUE(data->gpu_events.empty());
  EXPECT_FALSE(data->rank.has_value());  // no distributedInfo: the path must tell
  EXPECT_GT(data->basic.total, 0);
  EXPECT_GT(data->basic.comm, 0);
}

TEST(TraceReader, DamagedInputIsAClearError) {
  aorta::testing::TempDir dir;
  std::string text = gunzip(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz");
  auto truncated = read_trace(dir.write("truncated.json", text.substr(0, text.size() / 2)));
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().message.find("truncated"), std::string::npos) << truncated.error().message;
  EXPECT_NE(truncated.error().context.find("truncated.json"), std::string::npos);

  auto empty = read_trace(dir.write("empty.json", ""));
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("empty"), std::string::npos);

  auto corrupt = read_trace(dir.write("corrupt.json", R"({"traceEvents": [{"ph":"X","ts":1,"dur":NaN,"name":"k"}]})"));
  ASSERT_FALSE(corrupt.ok());
  EXPECT_NE(corrupt.error().message.find("not valid JSON"), std::string::npos) << corrupt.error().message;
  EXPECT_NE(corrupt.error().message.find("byte 17"), std::string::npos) << corrupt.error().message;

  // Elements of traceEvents must be objects, closed by '}'; the message names the byte.
  auto nested = read_trace(dir.write("nested.json", R"({"traceEvents": [{"ph":"X"}, [{"ph":"X"}]]})"));
  ASSERT_FALSE(nested.ok());
  EXPECT_NE(nested.error().message.find("element at byte 29 is an array"), std::string::npos)
      << nested.error().message;
  auto mismatched = read_trace(dir.write("mismatched.json", R"({"traceEvents": [{"ph":"X"]]})"));
  ASSERT_FALSE(mismatched.ok());
  EXPECT_NE(mismatched.error().message.find("element at byte 17 is an object closed by ']'"), std::string::npos)
      << mismatched.error().message;
  auto closed = read_trace(dir.write("closed.json", R"({"traceEvents": [{"ph":"X"}}})"));
  ASSERT_FALSE(closed.ok());
  EXPECT_NE(closed.error().message.find("traceEvents is closed by '}' at byte 27"), std::string::npos)
      << closed.error().message;

  auto missing = read_trace(dir.path() / "missing.json");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.error().code, ErrorCode::kNotFound);

  // A truncated gzip stream is reported as such, not as a short trace.
  std::string gz;
  {
    std::ifstream in(kData / "h200-torch2.11-kineto-nccl_rank0.json.gz", std::ios::binary);
    gz.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto cut = read_trace(dir.write("cut.json.gz", gz.substr(0, gz.size() / 2)));
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.error().message.find("gzip stream is damaged"), std::string::npos) << cut.error().message;
  // Flipped bytes mid-stream: zlib's checks catch them; the trace is not cut short there.
  std::string flipped = gz;
  for (size_t i = gz.size() / 2; i < gz.size() / 2 + 64; ++i) flipped[i] = static_cast<char>(~flipped[i]);
  auto damaged = read_trace(dir.write("damaged.json.gz", flipped));
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.error().message.find("gzip stream is damaged"), std::string::npos) << damaged.error().message;
}

TEST(TraceReader, GzipTraceThatFailsEarlyStopsTheInflatingThread) {
  // The JSON breaks in the first chunk of a 29 MB trace: the reader stops at once and
  // the thread inflating ahead is stopped with it (no hang, no leak under ASan).
  aorta::testing::TempDir dir;
  std::string text = gunzip(kData / "h200-aorta-overlap_rank0.pt.trace.json.gz");
  text[text.find("\"ph\"", 1000)] = '}';
  auto file = dir.path() / "early.json.gz";
  gzFile out = gzopen(file.c_str(), "wb1");
  gzwrite(out, text.data(), static_cast<unsigned>(text.size()));
  gzclose(out);
  auto data = read_trace(file);
  ASSERT_FALSE(data.ok());
  EXPECT_NE(data.error().message.find("at byte"), std::string::npos) << data.error().message;
}

TEST(TraceReader, NegativeDurationsAreSkippedAndCounted) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("neg.json", R"({"traceEvents":[
    {"ph":"X","cat":"kernel","name":"a","pid":0,"tid":1,"ts":0,"dur":-5},
    {"ph":"X","cat":"kernel","name":"b","pid":0,"tid":1,"ts":0,"dur":5}]})"));
  ASSERT_TRUE(data.ok());
  EXPECT_EQ(data->negative_durations, 1u);
  EXPECT_EQ(data->gpu_events.size(), 1u);
}

TEST(TraceReader, StringsWithBracesAndEscapesDoNotConfuseTheScanner) {
  aorta::testing::TempDir dir;
  auto data = read_trace(dir.write("esc.json", R"({"traceName": "x]}{[\"", "traceEvents":[
    {"ph":"X","cat":"kernel","name":"we\"ird}{][\\","pid":"GPU 0","tid":1,"ts":0,"dur":5,"args":{"n":{"deep":[1,{"x":"}"}]}}}],
    "distributedInfo": {"rank": 3, "world_size": 4}})"));
  ASSERT_TRUE(data.ok()) << data.error().describe();
  EXPECT_EQ(data->events, 1u);
  EXPECT_EQ(*data->rank, 3);
}

TEST(KernelClass, TraceLensRules) {
  EXPECT_EQ(classify_gpu_event("gpu_memcpy", "Memcpy HtoD"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "__amd_rocclr_copyBufferRectAligned.kd"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "MEMORY_COPY_DEVICE_TO_HOST"), GpuClass::kMemcpy);
  EXPECT_EQ(classify_gpu_event("kernel", "MEMORY_COPY_SIDEWAYS"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "__amd_rocclr_fillBufferAligned.kd"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "ncclDevKernel_AllReduce_Sum_f32_RING_LL"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "rcclGenericKernel"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "NCCLKERNEL"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "void cross_device_reduce_1stage<float>"), GpuClass::kCommunication);
  EXPECT_EQ(classify_gpu_event("kernel", "mscclKernel_Sum"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("gpu_memset", "Memset (Device)"), GpuClass::kComputation);
  EXPECT_EQ(classify_gpu_event("kernel", "Cijk_Alik_Bljk_HHS_BH"), GpuClass::kComputation);
}

TEST(KernelClass, BasicScanRules) {
  EXPECT_EQ(classify_basic("", "c10d::allreduce_"), BasicClass::kCommunication);
  EXPECT_EQ(classify_basic("cpu_op", "nccl:all_reduce"), BasicClass::kCommunication);
  EXPECT_EQ(classify_basic("", "gloo:all_reduce"), BasicClass::kOther);  // no rule names it
  EXPECT_EQ(classify_basic("gpu_memcpy", "Memcpy DtoD"), BasicClass::kMemory);
  EXPECT_EQ(classify_basic("kernel", "Cijk"), BasicClass::kComputeKernel);
  EXPECT_EQ(classify_basic("GPU", "x"), BasicClass::kComputeGpu);
}

}  // namespace
}  // namespace aorta::trace
