// Finding the key's passphrase: the key formats, and the terminal prompt on a real
// pseudo-terminal standing in for the user's.
#include "cluster/ssh_passphrase.h"

#include <fcntl.h>
#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include <gtest/gtest.h>

#include "tests/sshd_server.h"
#include "tests/temp_dir.h"

namespace aorta::cluster {
namespace {
using aorta::testing::run_or_throw;
using aorta::testing::TempDir;

TEST(KeyPassphrase, EncryptedKeysAreRecognisedInBothFormats) {
  TempDir dir;
  auto d = dir.path();
  run_or_throw("ssh-keygen -q -t ed25519 -N '' -f " + (d / "plain").string());
  run_or_throw("ssh-keygen -q -t ed25519 -N 'pass phrase' -f " + (d / "openssh").string());
  run_or_throw("ssh-keygen -q -t ecdsa -m PEM -N 'pass phrase' -f " + (d / "pem").string());
  run_or_throw("ssh-keygen -q -t ecdsa -m PEM -N '' -f " + (d / "pem_plain").string());
  EXPECT_FALSE(private_key_encrypted(d / "plain"));
  EXPECT_TRUE(private_key_encrypted(d / "openssh"));
  EXPECT_TRUE(private_key_encrypted(d / "pem"));
  EXPECT_FALSE(private_key_encrypted(d / "pem_plain"));
  // An unencrypted key needs no passphrase, whatever the settings.
  auto none = key_passphrase(d / "plain", {"AORTA_TEST_UNSET_VARIABLE", false});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "");
}

// Stdin replaced by the slave side of a pseudo-terminal for the test's duration.
class PseudoTerminal {
 public:
  PseudoTerminal() {
    master_ = ::posix_openpt(O_RDWR | O_NOCTTY);
    if (master_ < 0 || ::grantpt(master_) != 0 || ::unlockpt(master_) != 0) throw std::runtime_error("no pty");
    slave_ = ::open(::ptsname(master_), O_RDWR | O_NOCTTY);
    saved_stdin_ = ::dup(STDIN_FILENO);
    ::dup2(slave_, STDIN_FILENO);
  }
  ~PseudoTerminal() {
    ::dup2(saved_stdin_, STDIN_FILENO);
    std::cin.clear();
    for (int fd : {saved_stdin_, slave_, master_}) ::close(fd);
  }
  // Types `line` once the reader has turned echo off, as a user would after the
  // prompt (after 2 s regardless, so a reader that leaves echo on is not stuck).
  void type_when_echo_is_off(const std::string& line) {
    for (int i = 0; i < 200; ++i) {
      termios t{};
      if (::tcgetattr(slave_, &t) == 0 && !(t.c_lflag & ECHO)) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    (void)!::write(master_, line.data(), line.size());
  }
  // What the terminal showed back (echo), read without waiting.
  std::string screen() {
    std::string out;
    char buffer[256];
    ::fcntl(master_, F_SETFL, O_NONBLOCK);
    for (ssize_t n; (n = ::read(master_, buffer, sizeof buffer)) > 0;) out.append(buffer, static_cast<size_t>(n));
    return out;
  }
  bool echo_on() const {
    termios t{};
    return ::tcgetattr(slave_, &t) == 0 && (t.c_lflag & ECHO);
  }

 private:
  int master_ = -1, slave_ = -1, saved_stdin_ = -1;
};

TEST(KeyPassphrase, AskedOnTheTerminalWithoutEcho) {
  TempDir dir;
  auto key = dir.path() / "id";
  run_or_throw("ssh-keygen -q -t ed25519 -N 'typed secret' -f " + key.string());
  PseudoTerminal tty;
  ASSERT_TRUE(tty.echo_on());
  std::thread user([&] { tty.type_when_echo_is_off("typed secret\n"); });
  auto got = key_passphrase(key, {"", true});
  user.join();
  ASSERT_TRUE(got.ok()) << got.error().describe();
  EXPECT_EQ(*got, "typed secret");
  EXPECT_EQ(tty.screen().find("typed secret"), std::string::npos) << "the passphrase was echoed";
  EXPECT_TRUE(tty.echo_on()) << "the terminal's echo was not restored";
  // Not asked when the cluster file names a variable, nor when asking is off.
  ::unsetenv("AORTA_TEST_UNSET_VARIABLE");
  EXPECT_FALSE(key_passphrase(key, {"AORTA_TEST_UNSET_VARIABLE", true}).ok());
  EXPECT_FALSE(key_passphrase(key, {"", false}).ok());
}

}  // namespace
}  // namespace aorta::cluster
