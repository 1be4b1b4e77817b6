// Collection benchmark (issue 21, part 4): one real-shaped trace per node on the
// test cluster (ci/testcluster.sh, each node its own network namespace and sshd),
// brought home by aorta_suite's trace collection (compressed, then plain) and, in the same run, by scp,
// rsync -z and `ssh node 'zstd -1 -c F' | zstd -d`, each reading every node at
// once. Printed per method: wall seconds, bytes on the wire (the nodes' veth
// counters on the bridge, both directions), client CPU-seconds per GB of trace;
// every copy is compared with its original (cmp).
//
// The trace lies in each node's node-local storage (BASE/nodeI/local on this
// machine is /var/lib/aorta-node on node I), so each node reads only its own file.
// Every "node" shares this machine's cores with its sshd and compressor, so the
// wall times are a lower bound of what separate machines would reach.
//
// Usage: collect_bench SOURCE_TRACE [SIZE_MB=1024] [NODES=3] [BASE=/tmp/aorta-tc]
//        (the cluster up: ci/testcluster.sh up; root)
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "trace_gen.h"
#include "cluster/ssh_transport.h"
#include "common/shell_quote.h"
#include "job/collect.h"
#include "job/phase.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using aorta::shell_quote;

namespace {

constexpr const char* kNodeLocal = "/var/lib/aorta-node";
constexpr const char* kTracePath = "bench/out/torch_profiler/rank0/t.pt.trace.json";

std::string node_ip(int i) { return fmt::format("10.211.0.{}", 10 + i); }

double cpu(int who) {
  rusage u{};
  getrusage(who, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

uint64_t counter(const std::string& interface, const char* which) {
  std::ifstream in("/sys/class/net/" + interface + "/statistics/" + which);
  uint64_t value = 0;
  in >> value;
  return value;
}

// Bytes through every node's veth, both ways: what crossed the "network".
uint64_t wire_bytes(int nodes) {
  uint64_t total = 0;
  for (int i = 1; i <= nodes; ++i) {
    std::string veth = fmt::format("atcveth{}", i);
    total += counter(veth, "rx_bytes") + counter(veth, "tx_bytes");
  }
  return total;
}

struct Row {
  std::string name;
  double seconds = 0;
  uint64_t wire = 0;
  double cpu_seconds = 0;
  bool same = false;
};

int shell(const std::string& command) {
  std::fflush(stdout);
  return std::system(("bash -c " + shell_quote(command)).c_str());
}

// Runs one shell command per node at once; wall time, client CPU (the children's).
Row run_tools(const std::string& name, const std::vector<std::string>& commands, int nodes) {
  std::fflush(stdout);
  double cpu_before = cpu(RUSAGE_CHILDREN);
  uint64_t wire_before = wire_bytes(nodes);
  auto begin = Clock::now();
  std::vector<pid_t> pids;
  for (const auto& c : commands) {
    pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/bash", "bash", "-c", c.c_str(), static_cast<char*>(nullptr));
      _exit(127);
    }
    pids.push_back(pid);
  }
  bool ok = true;
  for (pid_t pid : pids) {
    int status = 0;
    waitpid(pid, &status, 0);
    ok = ok && WIFEXITED(status) && WEXITSTATUS(status) == 0;
  }
  Row row{name, std::chrono::duration<double>(Clock::now() - begin).count(), wire_bytes(nodes) - wire_before,
          cpu(RUSAGE_CHILDREN) - cpu_before, ok};
  if (!ok) std::printf("  %s: a command failed\n", name.c_str());
  return row;
}

// One bench run: where the cluster's files are, the nodes' originals, and where the
// copies of each method go.
struct Bench {
  fs::path base;
  fs::path work;
  int nodes = 0;
  std::vector<fs::path> originals;
  uint64_t total = 0;  // bytes of trace, every node's

  std::string node_file(int) const { return std::string(kNodeLocal) + "/" + kTracePath; }
  fs::path copy_of(const std::string& method, int i) const { return work / method / fmt::format("node{}.json", i); }
  // Every node's copy by `method` (through `decompress` when given) against its original.
  bool cmp_all(const std::string& method, const std::string& decompress) const {
    bool same = true;
    for (int i = 1; i <= nodes; ++i) {
      std::string copy = shell_quote(copy_of(method, i).string());
      std::string from = decompress.empty() ? copy : "<(" + decompress + " " + copy + ")";
      same = same && shell("cmp " + from + " " + shell_quote(originals[i - 1].string())) == 0;
    }
    return same;
  }
};

// A trace of size_mb for each node, in its node-local storage.
void write_originals(Bench& b, const char* source_path, uint64_t size_mb) {
  auto source = aorta::bench::load_source(source_path);
  for (int i = 1; i <= b.nodes; ++i) {
    fs::path original = b.base / fmt::format("node{}", i) / "local" / kTracePath;
    fs::create_directories(original.parent_path());
    b.total += aorta::bench::write_trace(source, original, size_mb << 20, i - 1);
    b.originals.push_back(original);
  }
}

// aorta_suite's collection stage itself, through the SSH transport, with the
// variant's trace_compression `compression`; nullopt when there is no transport.
std::optional<Row> run_aorta(const Bench& b, const std::string& compression) {
  aorta::config::Variant v;
  v.trace_compression = compression;
  const bool zstd = compression == "auto";
  v.aorta_path = kNodeLocal;
  v.container.runtime = aorta::config::RuntimeKind::kNone;
  aorta::config::Cluster c;
  c.username = "root";
  for (int i = 1; i <= b.nodes; ++i) c.nodes.push_back({node_ip(i), node_ip(i), ""});
  aorta::cluster::SshOptions o;
  o.user = "root";
  o.private_key = b.base / "id_ed25519";
  o.known_hosts = b.base / "known_hosts";
  auto transport = aorta::cluster::SshTransport::create(o);
  if (!transport) {
    std::printf("ssh: %s\n", transport.error().describe().c_str());
    return std::nullopt;
  }
  aorta::job::NodeExec exec(**transport, v, c);
  exec.in_containers("true", std::chrono::seconds(30));  // connect first: the handshakes are not the copy
  aorta::job::RunState state;
  state.run_id = "bench";
  state.output_root = b.work / "aorta";
  double cpu_before = cpu(RUSAGE_SELF);
  uint64_t wire_before = wire_bytes(b.nodes);
  auto begin = Clock::now();
  auto notes = aorta::job::collect_traces(exec, state, true, [](const std::string& line) {
    std::printf("  %s\n", line.c_str());
  });
  Row row{zstd ? "aorta_suite (zstd -1 on the node)" : "aorta_suite (plain, SFTP)", std::chrono::duration<double>(Clock::now() - begin).count(),
          wire_bytes(b.nodes) - wire_before, cpu(RUSAGE_SELF) - cpu_before, state.collection_errors.empty()};
  for (const auto& e : state.collection_errors) std::printf("  %s: %s\n", e.host.c_str(), e.message.c_str());
  // Its copies, decompressed, against the originals.
  fs::create_directories(b.work / "aorta_check");
  for (int i = 1; i <= b.nodes; ++i) {
    std::error_code ec;  // a missing copy fails cmp below
    fs::rename(b.work / "aorta" / "combined_traces" / fmt::format("node_{}", i - 1) / (zstd ? "bench/out/torch_profiler/rank0/t.pt.trace.json.zst" : "bench/out/torch_profiler/rank0/t.pt.trace.json"),
               b.copy_of("aorta_check", i), ec);
  }
  row.same = row.same && b.cmp_all("aorta_check", zstd ? "zstd -dc" : "");
  fs::remove_all(b.work / "aorta");
  fs::remove_all(b.work / "aorta_check");
  return row;
}

// scp, rsync -z and ssh | zstd, each reading every node at once.
void run_other_tools(const Bench& b, std::vector<Row>& rows) {
  auto tool = [&](const std::string& name, const std::string& method, const std::string& decompress,
                  auto command_for) {
    fs::create_directories(b.work / method);
    std::vector<std::string> commands;
    for (int i = 1; i <= b.nodes; ++i) commands.push_back(command_for(i, shell_quote(b.copy_of(method, i).string())));
    Row row = run_tools(name, commands, b.nodes);
    row.same = row.same && b.cmp_all(method, decompress);
    rows.push_back(row);
    fs::remove_all(b.work / method);
  };
  std::string ssh = "ssh -F " + shell_quote((b.base / "ssh_config").string());
  std::string sshcmd = ssh + " -o Compression=no";
  tool("scp", "scp", "", [&](int i, const std::string& dest) {
    return "scp -q -F " + shell_quote((b.base / "ssh_config").string()) + " " + node_ip(i) + ":" + b.node_file(i) + " " + dest;
  });
  tool("rsync -z", "rsync", "", [&](int i, const std::string& dest) {
    return "rsync -z -e " + shell_quote(sshcmd) + " " + node_ip(i) + ":" + b.node_file(i) + " " + dest;
  });
  tool("ssh node 'zstd -1 -c F' | zstd -d", "sshzstd", "", [&](int i, const std::string& dest) {
    return sshcmd + " " + node_ip(i) + " " + shell_quote("zstd -1 -q -c -- " + b.node_file(i)) + " | zstd -d -q -c > " + dest;
  });
}

void print_table(const std::vector<Row>& rows, uint64_t total) {
  const double gb = total / 1e9;
  std::printf("\n%-36s %9s %12s %14s %8s %6s\n", "method (all nodes at once)", "wall s", "wire MB", "client CPU-s/GB",
              "MB/s", "cmp");
  for (const auto& r : rows)
    std::printf("%-36s %9.2f %12.1f %14.2f %8.0f %6s\n", r.name.c_str(), r.seconds, r.wire / 1e6, r.cpu_seconds / gb,
                total / 1e6 / r.seconds, r.same ? "same" : "DIFF");
  const Row& ours = rows.front();
  std::printf("\nratios, aorta_suite against each (same run):\n");
  for (size_t k = 1; k < rows.size(); ++k)  // rows[1] is its own plain path
    std::printf("  %-34s speed %.2fx, wire bytes 1/%.1f, client CPU %.2fx\n", rows[k].name.c_str(),
                rows[k].seconds / ours.seconds, static_cast<double>(rows[k].wire) / std::max<uint64_t>(ours.wire, 1),
                ours.cpu_seconds / std::max(rows[k].cpu_seconds, 1e-9));
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || std::string(argv[1]) == "--help") {
    std::printf("usage: collect_bench SOURCE_TRACE [SIZE_MB=1024] [NODES=3] [BASE=/tmp/aorta-tc]\n");
    return argc < 2 ? 2 : 0;
  }
  uint64_t size_mb = argc > 2 ? std::stoull(argv[2]) : 1024;
  Bench b;
  b.nodes = argc > 3 ? std::stoi(argv[3]) : 3;
  b.base = argc > 4 ? argv[4] : "/tmp/aorta-tc";
  b.work = b.base / "collect_bench";
  fs::remove_all(b.work);
  fs::create_directories(b.work);

  write_originals(b, argv[1], size_mb);
  std::printf("%d nodes, %.2f GB of trace (%.0f MB each), page cache warm for every method\n\n", b.nodes, b.total / 1e9,
              b.total / 1e6 / b.nodes);
  // Read each once so that no method pays for the first read from disk.
  for (const auto& o : b.originals) shell("cat " + shell_quote(o.string()) + " > /dev/null");

  std::vector<Row> rows;
  // aorta_suite: the collection stage itself, through the SSH transport; then its
  // plain path (trace_compression none: SFTP).
  for (std::string compression : {"auto", "none"}) {
    auto row = run_aorta(b, compression);
    if (!row) return 1;
    rows.push_back(*row);
  }
  run_other_tools(b, rows);
  print_table(rows, b.total);
  for (const auto& o : b.originals) fs::remove(o);
  fs::remove_all(b.work);
  bool all_same = true;
  for (const auto& r : rows) all_same = all_same && r.same;
  return all_same ? 0 : 1;
}
