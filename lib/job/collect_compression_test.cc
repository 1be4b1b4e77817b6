// collect_traces' compression (issue 21): traces compressed on the node by what the
// node has, each copy checked against the node's listing, progress lines as it goes.
#include "job/collect.h"
#include "job/collect_node_commands.h"
#include "job/copy_check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "cluster/local_transport.h"
#include "tests/temp_dir.h"

namespace aorta::job {
namespace {

// Issue 21: traces compressed on the node, by what the node has. A node's tools are
// what its PATH offers: a folder of links to the real programs stands in for a
// node without zstd (or without either).
class CollectCompression : public ::testing::Test {
 protected:
  CollectCompression() : old_path_(std::getenv("PATH") ? std::getenv("PATH") : "") {
    v_.aorta_path = (dir_.path() / "repo").string();
    v_.container.runtime = config::RuntimeKind::kNone;
    state_.run_id = "r";
    state_.output_root = dir_.path() / "out";
    // 3 MB of trace-like text, with a line number so it is not one repeated block.
    for (int i = 0; i < 40000; ++i)
      trace_ += "{\"name\": \"kernel_" + std::to_string(i % 97) + "\", \"ts\": " + std::to_string(i * 13) + "},\n";
    dir_.write("repo/.cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json", trace_);
    dir_.write("repo/.cvs-aorta/r/output/torch_profiler/rank0/notes.txt", "notes\n");
  }
  ~CollectCompression() override { ::setenv("PATH", old_path_.c_str(), 1); }

  // PATH holds only these programs and python3, which collection needs on every node
  // (plus `extra` scripts: name -> body; a compressor reads the trace on its stdin).
  void only_programs(std::vector<const char*> names, std::map<std::string, std::string> extra = {}) {
    auto bin = dir_.path() / "bin";
    std::filesystem::create_directories(bin);
    names.push_back("python3");
    for (const char* name : names) {
      std::string found = find_program(name);
      ASSERT_FALSE(found.empty()) << name;
      std::filesystem::create_symlink(found, bin / name);
    }
    for (const auto& [name, body] : extra) {
      auto script = dir_.write("bin/" + name, "#!/bin/bash\n" + body + "\n");
      std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    }
    ::setenv("PATH", bin.c_str(), 1);
  }
  std::string find_program(const std::string& name) const {
    for (const char* d : {"/usr/bin", "/bin", "/usr/local/bin"})
      if (std::filesystem::exists(std::filesystem::path(d) / name)) return (std::filesystem::path(d) / name).string();
    return "";
  }
  std::vector<std::string> collect(std::chrono::milliseconds progress_every = kProgressEvery) {
    cluster::LocalTransport local;
    NodeExec exec(local, v_, c_);
    if (!docker_.empty()) exec.set_docker("localhost", docker_);
    collect_traces(exec, state_, false, [&](const std::string& line) { lines_.push_back(line); }, progress_every);
    std::vector<std::string> got;
    for (const auto& e : std::filesystem::recursive_directory_iterator(state_.output_root))
      if (e.is_regular_file() && e.path().filename() != kCopyMarker)  // the marker: collect_test
        got.push_back(std::filesystem::relative(e.path(), state_.output_root).string());
    std::sort(got.begin(), got.end());
    return got;
  }
  // The copy decompressed by the system's own tool.
  std::string decompressed(const std::string& tool, const std::string& relative) const {
    std::string command = "/usr/bin/" + tool + " -dc " + (state_.output_root / relative).string();
    std::string out;
    FILE* pipe = ::popen(command.c_str(), "r");
    char buffer[65536];
    for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
    ::pclose(pipe);
    return out;
  }
  std::string errors() const {
    std::string all;
    for (const auto& e : state_.collection_errors) all += e.host + ": " + e.message + "\n";
    return all;
  }

  aorta::testing::TempDir dir_;
  std::string old_path_;
  config::Variant v_;
  config::Cluster c_ = config::local_cluster("tester");
  RunState state_;
  std::string trace_;
  std::vector<std::string> lines_;
  std::string docker_;  // a container runtime's command, when the test gives the node one
  const std::string kTrace = "traces/output/torch_profiler/rank0/t.pt.trace.json";
  const std::string kNotes = "traces/output/torch_profiler/rank0/notes.txt";
};

TEST_F(CollectCompression, ZstdWhereTheNodeHasIt) {
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace + ".zst"}));
  EXPECT_EQ(decompressed("zstd", kTrace + ".zst"), trace_);
  EXPECT_LT(std::filesystem::file_size(state_.output_root / (kTrace + ".zst")), trace_.size() / 5);
  ASSERT_EQ(lines_.size(), 1u);
  EXPECT_NE(lines_[0].find("[collect] 1/1 nodes: localhost 2/2 file(s), "), std::string::npos) << lines_[0];
  EXPECT_NE(lines_[0].find(fmt::format("{:.1f} MB of traces", (trace_.size() + 6) / 1e6)), std::string::npos) << lines_[0];
  EXPECT_NE(lines_[0].find(", zstd)"), std::string::npos) << lines_[0];
}

// The copies run in the container: its compressor counts, not the host's. Here the
// host has zstd and the "container" (a docker stand-in running the command with a PATH
// of its own) has only gzip.
TEST_F(CollectCompression, TheContainersCompressorIsTheOneAskedFor) {
  auto bin = dir_.path() / "container_bin";
  std::filesystem::create_directories(bin);
  for (const char* name : {"bash", "find", "gzip", "python3"})
    std::filesystem::create_symlink(find_program(name), bin / name);
  auto docker = dir_.write("docker", "#!/bin/bash\n# exec NAME bash -c COMMAND\nexec env PATH=" + bin.string() +
                                         " bash -c \"$5\"\n");
  std::filesystem::permissions(docker, std::filesystem::perms::owner_all);
  ASSERT_FALSE(find_program("zstd").empty()) << "the host needs zstd for this test";
  v_.container.runtime = config::RuntimeKind::kDocker;
  v_.container_mount_path = v_.aorta_path;  // the container sees the checkout where the host does
  docker_ = docker.string();
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace + ".gz"}));
  EXPECT_EQ(decompressed("gzip", kTrace + ".gz"), trace_);
}

TEST_F(CollectCompression, GzipWhereTheNodeHasNoZstd) {
  only_programs({"bash", "find", "gzip"});
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace + ".gz"}));
  EXPECT_EQ(decompressed("gzip", kTrace + ".gz"), trace_);
}

TEST_F(CollectCompression, PlainWhereTheNodeHasNeither) {
  only_programs({"bash", "find"});
  auto got = collect();
  EXPECT_EQ(errors(), "");
  EXPECT_EQ(got, (std::vector<std::string>{kNotes, kTrace}));
  std::ifstream in(state_.output_root / kTrace, std::ios::binary);
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()), trace_);
}

TEST_F(CollectCompression, PlainWhenTheConfigAsks) {
  v_.trace_compression = "none";
  EXPECT_EQ(collect(), (std::vector<std::string>{kNotes, kTrace}));
  EXPECT_EQ(errors(), "");
}

TEST_F(CollectCompression, AskedCompressorMissingNamesTheNode) {
  v_.trace_compression = "zstd";
  only_programs({"bash", "find", "gzip"});
  EXPECT_EQ(collect(), std::vector<std::string>{});
  EXPECT_EQ(errors(), "localhost: trace_compression is zstd but localhost has no zstd (it has: gzip)\n");
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

// A stream damaged on the way: the frame's checksum (or its structure) fails, the
// copy is removed and the failure names the file.
TEST_F(CollectCompression, CorruptedStreamFailsNamingTheFile) {
  only_programs({"bash", "find", "head", "tail"},
                {{"zstd", "/usr/bin/zstd \"$@\" > \"$0.tmp\"; head -c 1000 \"$0.tmp\"; printf 'XXXX'; tail -c +1005 \"$0.tmp\""}});
  auto got = collect();
  EXPECT_EQ(got, std::vector<std::string>{kNotes});  // copied before the trace; the damaged copy is gone
  EXPECT_NE(errors().find("localhost: copy of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json failed its check: the "
                          "compressed copy "), std::string::npos) << errors();
  EXPECT_NE(errors().find(" is damaged: "), std::string::npos) << errors();
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

// A well-formed stream of other bytes than the node listed (the file changed).
TEST_F(CollectCompression, SizeMismatchFailsNamingTheFile) {
  only_programs({"bash", "find", "cat", "head"},
                {{"zstd", "head -c -9 | /usr/bin/zstd -1 -q -c"}});
  auto got = collect();
  EXPECT_EQ(got, std::vector<std::string>{kNotes});
  EXPECT_EQ(errors(), fmt::format("localhost: copy of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json holds {} bytes, the "
                                  "node listed {} (changed while it was copied?)\n",
                                  trace_.size() - 9, trace_.size()));
}

// Issue 29 (9), a lying node: a stream that decompresses past the listed size is
// stopped right there (4 MiB of zstd can hold 128 GiB), and one that sends more
// bytes than any compression of the listed size takes is stopped as it arrives
// (`yes` never ends). Neither copy is left behind.
TEST_F(CollectCompression, AGrownFileStopsAtTheListedSize) {
  only_programs({"bash", "find", "cat"}, {{"zstd", "{ cat; echo appended; } | /usr/bin/zstd -1 -q -c"}});
  EXPECT_EQ(collect(), std::vector<std::string>{kNotes});
  EXPECT_NE(errors().find(fmt::format("decompresses to more than the {} bytes the node listed", trace_.size())),
            std::string::npos) << errors();
}

TEST_F(CollectCompression, ADecompressionBombStopsAtTheListedSize) {
  only_programs({"bash", "find", "head"}, {{"zstd", "head -c 1073741824 /dev/zero | /usr/bin/zstd -1 -q -c"}});
  EXPECT_EQ(collect(), std::vector<std::string>{kNotes});
  EXPECT_NE(errors().find(fmt::format("decompresses to more than the {} bytes the node listed", trace_.size())),
            std::string::npos) << errors();
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

TEST_F(CollectCompression, AnEndlessStreamStopsAtWhatTheListedSizeCanTake) {
  only_programs({"bash", "find", "yes"}, {{"zstd", "yes"}});
  EXPECT_EQ(collect(), std::vector<std::string>{kNotes});
  EXPECT_NE(errors().find(fmt::format("copy of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json failed: the node "
                                      "sent more than the {} bytes t.pt.trace.json.zst may take",
                                      max_compressed_bytes(trace_.size()))),
            std::string::npos) << errors();
  EXPECT_EQ(state_.artifacts.count("torch_traces"), 0u);
}

// A node busy with one file for a while says how far it has come, with the bytes
// of the file it is writing: the fake zstd writes 3 bytes, then waits.
TEST_F(CollectCompression, LongCopyGetsProgressLines) {
  only_programs({"bash", "find", "sleep"}, {{"zstd", "printf abc; sleep 1.5; exit 3"}});
  collect(std::chrono::milliseconds(400));
  ASSERT_GE(lines_.size(), 3u) << ::testing::PrintToString(lines_);
  EXPECT_NE(lines_[0].find("[collect] still copying: localhost 1/2 file(s), 0.0 MB in "), std::string::npos) << lines_[0];
  EXPECT_NE(lines_[0].find("; 0.0 MB of traces ("), std::string::npos) << lines_[0];
  EXPECT_NE(lines_.back().find("[collect] 1/1 nodes: localhost 1/2 file(s), 0.0 MB in "), std::string::npos) << lines_.back();
  EXPECT_NE(lines_.back().find(", stopped by a failure; elapsed "), std::string::npos) << lines_.back();
}

// The compressor failing on the node: its exit code and stderr in the error.
TEST_F(CollectCompression, CompressorFailureKeepsItsMessage) {
  only_programs({"bash", "find"}, {{"zstd", "echo 'zstd: out of memory' >&2; exit 9"}});
  collect();
  EXPECT_EQ(errors(), "localhost: zstd of .cvs-aorta/r/output/torch_profiler/rank0/t.pt.trace.json on the node failed (exit 9): "
                      "zstd: out of memory\n");
}

}  // namespace
}  // namespace aorta::job
