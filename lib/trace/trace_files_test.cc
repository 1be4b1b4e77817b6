#include "trace/trace_files.h"

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstring>

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
  flat.write("r2.pt.trace.json.zst", "");
  flat.write("notes.txt", "");
  flat.write("notes.zst", "");
  EXPECT_EQ(find_trace_files(flat.path()).size(), 3u);
}

// Issue 29: a link was skipped without a word, so a linked rank vanished from a
// "success" parse. Links are still never followed; each that could lead to a trace
// (a trace's name, or a folder) is named. Others (notes.txt) are not traces.
TEST(TraceFiles, LinksThatCouldLeadToTracesAreNamed) {
  aorta::testing::TempDir dir, elsewhere;
  dir.write("rank0/a.json", "[]");
  elsewhere.write("b.json", "[]");
  elsewhere.write("notes.txt", "");
  std::filesystem::create_symlink(elsewhere.path() / "b.json", dir.path() / "rank1.json");
  std::filesystem::create_directory_symlink(elsewhere.path(), dir.path() / "rank0" / "more");
  std::filesystem::create_symlink(elsewhere.path() / "notes.txt", dir.path() / "notes.txt");
  std::filesystem::create_symlink(dir.path() / "gone", dir.path() / "rank2.json.gz");  // dangling
  std::filesystem::create_directory_symlink(dir.path(), dir.path() / "loop");
  FoundTraces found = find_traces(dir.path());
  EXPECT_EQ(found.files, std::vector<std::filesystem::path>{dir.path() / "rank0" / "a.json"});
  EXPECT_EQ(found.links, (std::vector<std::filesystem::path>{dir.path() / "loop", dir.path() / "rank0" / "more",
                                                             dir.path() / "rank1.json", dir.path() / "rank2.json.gz"}));
}

// A UNIX socket bound at path (the file stays after the descriptor is closed).
bool make_socket_file(const std::filesystem::path& path) {
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  if (path.string().size() >= sizeof address.sun_path) return false;
  std::strcpy(address.sun_path, path.c_str());
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  const bool bound = fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  if (fd >= 0) ::close(fd);
  return bound;
}

// Issue 42, 6: a FIFO with a trace's name was skipped without a word, so its rank
// vanished from a "success" parse. Anything with a trace's name that is neither a file
// nor a folder is named with what it is, found by its type alone (a FIFO never opened:
// the open would wait for a writer). Given by name, such a path is named too.
TEST(TraceFiles, SpecialFilesWithATracesNameAreNamed) {
  aorta::testing::TempDir dir;
  dir.write("rank1/b.json", "[]");
  ASSERT_EQ(::mkfifo((dir.path() / "rank0.json").c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((dir.path() / "notes.txt").c_str(), 0600), 0);  // not a trace's name
  ASSERT_TRUE(make_socket_file(dir.path() / "rank2.json.gz"));
  FoundTraces found = find_traces(dir.path());
  EXPECT_EQ(found.files, std::vector<std::filesystem::path>{dir.path() / "rank1" / "b.json"});
  const std::string fifo = (dir.path() / "rank0.json").string() + ": not a regular file (a FIFO)";
  const std::string socket = (dir.path() / "rank2.json.gz").string() + ": not a regular file (a socket)";
  EXPECT_EQ(found.not_regular, (std::vector<std::string>{fifo, socket}));
  // A device where the process may make one (root with CAP_MKNOD): /dev/null's numbers.
  if (::mknod((dir.path() / "rank3.json").c_str(), S_IFCHR | 0600, makedev(1, 3)) == 0)
    EXPECT_EQ(find_traces(dir.path()).not_regular.back(),
              (dir.path() / "rank3.json").string() + ": not a regular file (a character device)");
  EXPECT_EQ(find_traces(dir.path() / "rank0.json").not_regular, std::vector<std::string>{fifo});
  EXPECT_TRUE(find_traces(dir.path() / "rank0.json").files.empty());
  // Aorta's layout (torch_profiler) shown by a FIFO alone: the report beside it is no
  // trace, and a FIFO beside it is not named.
  aorta::testing::TempDir aorta;
  aorta.write("aorta_benchmark_report.json", "{}");
  const auto in_profiler = aorta.path() / "out" / "torch_profiler" / "a.json";
  std::filesystem::create_directories(in_profiler.parent_path());
  ASSERT_EQ(::mkfifo(in_profiler.c_str(), 0600), 0);
  ASSERT_EQ(::mkfifo((aorta.path() / "other.json").c_str(), 0600), 0);
  FoundTraces layout = find_traces(aorta.path());
  EXPECT_TRUE(layout.files.empty());
  EXPECT_EQ(layout.not_regular, std::vector<std::string>{in_profiler.string() + ": not a regular file (a FIFO)"});
}

// Issue 14, item 9: a folder that cannot be listed was skipped without a word
// (skip_permission_denied), so its ranks vanished from a "success" parse. Root reads
// any folder, so as root the walk runs in a child that has become nobody.
TEST(TraceFiles, UnreadableFolderIsNamed) {
  aorta::testing::TempDir dir;
  dir.write("rank0/a.json", "[]");
  dir.write("locked/rank1/b.json", "[]");
  std::filesystem::permissions(dir.path(), std::filesystem::perms::all);  // nobody must reach it
  ASSERT_EQ(::chmod((dir.path() / "locked").c_str(), 0), 0);
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(pipe_fds[0]);
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(2);
    FoundTraces found = find_traces(dir.path());
    std::string report = std::to_string(found.files.size()) + "\n";
    for (const auto& u : found.unreadable) report += u + "\n";
    ssize_t ignored = ::write(pipe_fds[1], report.data(), report.size());
    (void)ignored;
    ::_exit(0);
  }
  ::close(pipe_fds[1]);
  std::string report;
  char buf[4096];
  for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) report.append(buf, static_cast<size_t>(n));
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  ::chmod((dir.path() / "locked").c_str(), 0755);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_EQ(report, "1\n" + (dir.path() / "locked").string() + ": Permission denied\n");
}

// tensorboard_trace_handler's names, as PyTorch writes them (worker name <host>_<pid>,
// then time.time() * 1000 as an integer).
TEST(TraceFiles, HostFromTheTraceHandlersFileName) {
  EXPECT_EQ(host_from_file_name("out/rank3/gpu-node-07_4242.1733300000123.pt.trace.json"), "gpu-node-07");
  EXPECT_EQ(host_from_file_name("n1.cluster.local_17.5.pt.trace.json.zst"), "n1.cluster.local");
  EXPECT_EQ(host_from_file_name("a_b_9_1.2.pt.trace.json.gz"), std::nullopt);  // '_' is no host character
  EXPECT_EQ(host_from_file_name("rank0.pt.trace.json.gz"), std::nullopt);
  EXPECT_EQ(host_from_file_name("host_12.pt.trace.json"), std::nullopt);  // no milliseconds
  EXPECT_EQ(host_from_file_name("host_1.2.pt.trace.json.bak"), std::nullopt);
}

}  // namespace
}  // namespace aorta::trace
