// A real OpenSSH sshd on loopback for the transport tests: its own host key, a
// client ed25519 key in authorized_keys, a known_hosts file naming it, and the
// internal SFTP server. Started in the constructor, stopped in the destructor.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <boost/process.hpp>

#include "tests/temp_dir.h"

namespace aorta::testing {

inline std::string slurp(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void run_or_throw(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("failed: " + command);
}

// A port the kernel just handed out, so parallel test runs do not collide.
inline int free_port() {
  int s = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
  socklen_t len = sizeof a;
  ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
  ::close(s);
  return ntohs(a.sin_port);
}

// What differs between the test servers: where they listen, and extra sshd_config
// lines (LogLevel, AllowTcpForwarding, ...), which come first and so win (sshd
// takes a keyword's first value).
struct SshdSetup {
  std::vector<std::string> addresses = {"127.0.0.1", "127.0.0.2"};
  std::string extra_config;
};

class SshdServer {
 public:
  // By default listens on 127.0.0.1 and 127.0.0.2 so tests can address "two nodes".
  explicit SshdServer(SshdSetup setup = {}) : setup_(std::move(setup)), port_(free_port()) {
    const auto& d = dir_.path();
    if (!std::filesystem::exists("/usr/sbin/sshd"))
      throw std::runtime_error("/usr/sbin/sshd is missing: install openssh-server (bash ci/setup.sh)");
    std::filesystem::create_directories("/run/sshd");  // privilege separation directory
    std::filesystem::create_directories(d / "home");
    run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + (d / "host_key").string());
    run_or_throw("ssh-keygen -q -t ed25519 -N '' -C aorta-test -f " + (d / "id_ed25519").string());
    std::filesystem::copy_file(d / "id_ed25519.pub", d / "authorized_keys");
    std::string host_key = slurp(d / "host_key.pub");
    host_key = host_key.substr(0, host_key.rfind(' '));  // "ssh-ed25519 AAAA..."
    std::ofstream known(d / "known_hosts");
    std::ofstream config(d / "sshd_config");
    config << "Port " << port_ << "\n";
    for (const auto& address : setup_.addresses) {
      known << "[" << address << "]:" << port_ << " " << host_key << "\n";
      config << "ListenAddress " << address << "\n";
    }
    known.close();
    config << setup_.extra_config << "\n";
    config.close();
    std::ofstream(d / "sshd_config", std::ios::app)
                                     << "HostKey " << (d / "host_key").string() << "\n"
                                     << "AuthorizedKeysFile " << (d / "authorized_keys").string() << "\n"
                                     << "PidFile none\nPermitRootLogin prohibit-password\nPasswordAuthentication no\n"
                                     << "KbdInteractiveAuthentication no\nUsePAM no\nStrictModes no\nUseDNS no\n"
                                     << "MaxStartups 200:30:400\nSubsystem sftp internal-sftp\nLogLevel VERBOSE\n"
                                     // A home of its own, as a node has: the shell sshd starts must not
                                     // read the tester's dotfiles (a pyenv rehash there waits on a lock
                                     // shared with every concurrent login, past the tests' timeouts).
                                     << "SetEnv HOME=" << (d / "home").string() << "\n";
    sshd_ = boost::process::child("/usr/sbin/sshd", "-D", "-e", "-f", (d / "sshd_config").string(),
                                  boost::process::std_err > (d / "sshd.log").string());
    wait_listening();
  }
  ~SshdServer() {
    std::error_code ec;
    sshd_.terminate(ec);
  }
  SshdServer(const SshdServer&) = delete;
  SshdServer& operator=(const SshdServer&) = delete;

  int port() const { return port_; }
  std::filesystem::path dir() const { return dir_.path(); }
  std::filesystem::path client_key() const { return dir_.path() / "id_ed25519"; }
  std::filesystem::path known_hosts() const { return dir_.path() / "known_hosts"; }
  std::filesystem::path host_public_key() const { return dir_.path() / "host_key.pub"; }
  std::string log() const { return slurp(dir_.path() / "sshd.log"); }
  // Ends every client connection (the per-connection sshd processes, found by
  // parent id under /proc); the server itself keeps listening.
  void drop_connections() const {
    std::vector<pid_t> parents = {static_cast<pid_t>(sshd_.id())};
    while (!parents.empty()) {
      pid_t parent = parents.back();
      parents.pop_back();
      for (const auto& entry : std::filesystem::directory_iterator("/proc")) {
        std::string stat = slurp(entry.path() / "stat");
        size_t close = stat.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream fields(stat.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        fields >> state >> ppid;
        if (ppid != parent) continue;
        pid_t child = std::stoi(entry.path().filename().string());
        parents.push_back(child);
        ::kill(child, SIGKILL);
      }
    }
  }
  // Ends the listening server; the connections it has accepted go on (each is a
  // process of its own), new ones are refused.
  void stop_listening() {
    ::kill(static_cast<pid_t>(sshd_.id()), SIGTERM);
    std::error_code ec;
    sshd_.wait(ec);
  }
  // Authorizes one more client public key.
  void authorize(const std::filesystem::path& public_key) const {
    std::ofstream(dir_.path() / "authorized_keys", std::ios::app) << slurp(public_key);
  }

 private:
  void wait_listening() {
    for (int i = 0; i < 100; ++i) {
      int s = ::socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in a{};
      a.sin_family = AF_INET;
      a.sin_port = htons(static_cast<uint16_t>(port_));
      ::inet_pton(AF_INET, setup_.addresses.front().c_str(), &a.sin_addr);
      bool up = ::connect(s, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
      ::close(s);
      if (up) return;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    throw std::runtime_error("sshd did not start listening: " + log());
  }

  TempDir dir_;
  SshdSetup setup_;
  int port_;
  boost::process::child sshd_;
};

}  // namespace aorta::testing
