// The SSH transport's tests' fixture: a real OpenSSH sshd on loopback (sshd_server.h),
// the options that reach a server as root with its client key, and the checks the
// transport tests share.
#pragma once

#include <cstdlib>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "cluster/ssh_transport.h"
#include "tests/sshd_server.h"

namespace aorta::cluster {

inline SshOptions root_options(const aorta::testing::SshdServer& server) {
  SshOptions o;
  o.user = "root";
  o.private_key = server.client_key();
  o.port = server.port();
  o.known_hosts = server.known_hosts();
  o.connect_timeout = std::chrono::seconds(10);
  return o;
}

// The transport, or null with the test failed, saying why.
inline std::unique_ptr<SshTransport> created_transport(const SshOptions& o) {
  auto t = SshTransport::create(o);
  if (!t.ok()) ADD_FAILURE() << t.error().describe();
  return t.ok() ? std::move(*t) : nullptr;
}

// The node's connection still serves commands (after a batch, a copy stopped at its
// limit, a tunnel's download).
inline void expect_serves_commands(Transport& t, const std::string& host) {
  auto after = t.run(host, "echo after", std::chrono::seconds(10));
  ASSERT_TRUE(after.ok()) << after.error().describe();
  EXPECT_EQ(after->output, "after\n");
}

class SshTransportTest : public ::testing::Test {
 protected:
  // The developer's own agent must not log the tests in (or change what they try).
  SshTransportTest() { ::unsetenv("SSH_AUTH_SOCK"); }
  SshOptions options() const { return root_options(sshd_); }
  std::unique_ptr<SshTransport> transport(const SshOptions& o) { return created_transport(o); }
  aorta::testing::SshdServer sshd_;
};

}  // namespace aorta::cluster
