// Fan-out benchmark: one stage's command (test_launch_container's host preparation)
// on 1, 16, 64 and 256 nodes through aorta_suite's SSH transport, against pdsh and
// a sequential ssh loop running the same command on the same nodes in the same run.
//
// The nodes are loopback addresses (127.0.1.1, 127.0.1.2, ...) served by one real
// sshd. The bench enters a network namespace of its own first (root needed), so
// that sshd may listen on every address without being reachable from outside.
//
// Usage: fanout_bench [MAX_NODES]    (default 256)
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/process.hpp>
#include <fmt/format.h>

#include "cluster/ssh_transport.h"
#include "common/shell_quote.h"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

const std::string kCommand = "id -u && id -g && (getent group render | cut -d: -f3 || true)";

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

double cpu_seconds() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

// CPU-seconds every process on the machine used so far (/proc/stat: all but idle
// and iowait). On one machine the "nodes" share its cores, so this bounds the wall
// time from below: CPU-seconds / cores.
double machine_cpu_seconds() {
  std::ifstream stat("/proc/stat");
  std::string cpu;
  double user, nice, system, idle, iowait, irq, softirq, steal;
  stat >> cpu >> user >> nice >> system >> idle >> iowait >> irq >> softirq >> steal;
  return (user + nice + system + irq + softirq + steal) / sysconf(_SC_CLK_TCK);
}

std::string node_address(int i) { return fmt::format("127.0.{}.{}", 1 + i / 250, 1 + i % 250); }

// Throws, so the sshd child and the work folder are cleaned up on the way out.
void must(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The bench's login user (an empty home: the nodes' shells start with no rc files,
// so the figures measure the transport, not this machine's root .bashrc; here it
// runs `pyenv init`, about 0.2 s per command on every tool alike), the keys, and the
// configs of sshd and ssh, in dir.
void prepare_nodes(const fs::path& dir, int max_nodes) {
  if (std::system("id aorta-bench > /dev/null 2>&1") != 0)
    must("useradd --system --password '*' --no-create-home --shell /bin/bash aorta-bench");
  fs::create_directories(dir);
  fs::create_directories("/run/sshd");
  fs::create_directories(dir / "home");
  must("usermod --home " + (dir / "home").string() + " aorta-bench");
  must("ssh-keygen -q -t ed25519 -N '' -f " + (dir / "host_key").string());
  must("ssh-keygen -q -t ed25519 -N '' -f " + (dir / "id_ed25519").string());
  fs::copy_file(dir / "id_ed25519.pub", dir / "authorized_keys");
  std::string host_key;
  std::getline(std::ifstream(dir / "host_key.pub"), host_key);
  host_key = host_key.substr(0, host_key.rfind(' '));
  std::ofstream known(dir / "known_hosts");
  for (int i = 0; i < max_nodes; ++i) known << node_address(i) << " " << host_key << "\n";
  std::ofstream(dir / "sshd_config") << "Port 22\nListenAddress 0.0.0.0\nHostKey " << (dir / "host_key").string()
                                     << "\nAuthorizedKeysFile " << (dir / "authorized_keys").string()
                                     << "\nPidFile none\nPasswordAuthentication no\n"
                                        "UsePAM no\nStrictModes no\nUseDNS no\nMaxStartups 1024:100:1024\n";
  std::ofstream(dir / "ssh_config") << "Host *\n User aorta-bench\n IdentityFile " << (dir / "id_ed25519").string()
                                    << "\n IdentitiesOnly yes\n UserKnownHostsFile " << (dir / "known_hosts").string()
                                    << "\n StrictHostKeyChecking yes\n BatchMode yes\n LogLevel ERROR\n";
}

void print_header() {
  std::printf("Fan-out of one stage command (%s) over real SSH, one sshd serving every node\n", kCommand.c_str());
  std::printf("%u cores; median of 3 runs except the ssh loop (1 run). CPU columns are for the new-connection run:\n"
              "aorta_suite's own, and every process's on the machine (sshd, shells, commands) divided by the cores,\n"
              "the least wall time this machine allows for that work.\n\n", std::thread::hardware_concurrency());
  std::printf("| nodes | aorta_suite, new connections | aorta_suite, reused connections | aorta_suite CPU | "
              "machine CPU / cores | pdsh -R ssh | ssh loop |\n");
  std::printf("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
}

// Three runs on `hosts` of aorta_suite (new connections, then reused ones) and pdsh.
struct Runs {
  std::vector<double> cold, warm, cpu, machine, pdsh;
};
Runs measure(const std::vector<std::string>& hosts, const aorta::cluster::SshOptions& options, const fs::path& dir) {
  Runs runs;
  for (int rep = 0; rep < 3; ++rep) {
    auto made = aorta::cluster::SshTransport::create(options);
    auto& transport = *made;
    double cpu0 = cpu_seconds(), machine0 = machine_cpu_seconds();
    auto t0 = Clock::now();
    auto first = aorta::cluster::run_everywhere(*transport, hosts, kCommand, std::chrono::seconds(120));
    runs.cold.push_back(seconds_since(t0));
    runs.cpu.push_back(cpu_seconds() - cpu0);
    runs.machine.push_back(machine_cpu_seconds() - machine0);
    auto t1 = Clock::now();
    auto second = aorta::cluster::run_everywhere(*transport, hosts, kCommand, std::chrono::seconds(120));
    runs.warm.push_back(seconds_since(t1));
    if (!aorta::cluster::all_succeeded(first) || !aorta::cluster::all_succeeded(second)) {
      throw std::runtime_error(aorta::cluster::describe_failures(first));
    }
    std::string list;
    for (const auto& h : hosts) list += (list.empty() ? "" : ",") + h;
    auto t2 = Clock::now();
    must("PDSH_RCMD_TYPE=ssh PDSH_SSH_ARGS_APPEND=" + aorta::shell_quote("-F " + (dir / "ssh_config").string()) +
         " pdsh -f 1024 -w " + list + " " + aorta::shell_quote(kCommand) + " > /dev/null 2>&1");
    runs.pdsh.push_back(seconds_since(t2));
  }
  return runs;
}

// One run of a sequential ssh loop over `hosts`.
double ssh_loop_seconds(const std::vector<std::string>& hosts, const std::string& ssh) {
  std::string loop = "for h in";
  for (const auto& h : hosts) loop += " " + h;
  loop += "; do " + ssh + " \"$h\" " + aorta::shell_quote(kCommand) + " > /dev/null 2>&1 || exit 1; done";
  auto t3 = Clock::now();
  must("bash -c " + aorta::shell_quote(loop));
  return seconds_since(t3);
}

}  // namespace

int run(int argc, char** argv) {
  int max_nodes = argc > 1 ? std::atoi(argv[1]) : 256;
  if (unshare(CLONE_NEWNET) != 0) {
    std::perror("fanout_bench: unshare(CLONE_NEWNET) (run as root)");
    return 1;
  }
  must("ip link set lo up");
  fs::path dir = fs::temp_directory_path() / fmt::format("aorta_fanout_{}", getpid());
  prepare_nodes(dir, max_nodes);
  boost::process::child sshd("/usr/sbin/sshd", "-D", "-f", (dir / "sshd_config").string());
  struct Cleanup {
    boost::process::child& sshd;
    fs::path dir;
    ~Cleanup() {
      std::error_code ec;
      sshd.terminate(ec);
      fs::remove_all(dir, ec);
    }
  } cleanup{sshd, dir};
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  std::string ssh = "ssh -F " + aorta::shell_quote((dir / "ssh_config").string());

  aorta::cluster::SshOptions options;
  options.user = "aorta-bench";
  options.private_key = dir / "id_ed25519";
  options.known_hosts = dir / "known_hosts";

  print_header();
  double single_cold = 0;
  for (int n : {1, 16, 64, 256}) {
    if (n > max_nodes) break;
    std::vector<std::string> hosts;
    for (int i = 0; i < n; ++i) hosts.push_back(node_address(i));
    const Runs runs = measure(hosts, options, dir);
    double sequential = ssh_loop_seconds(hosts, ssh);
    if (n == 1) single_cold = median(runs.cold);
    std::printf("| %d | %.3f s (%.2fx one node) | %.3f s | %.3f s | %.3f s | %.3f s (%.2fx ours) | %.3f s |\n", n,
                median(runs.cold), median(runs.cold) / single_cold, median(runs.warm), median(runs.cpu),
                median(runs.machine) / std::thread::hardware_concurrency(), median(runs.pdsh),
                median(runs.pdsh) / median(runs.cold), sequential);
    std::fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "fanout_bench: %s\n", e.what());
    return 1;
  }
}
