#include "cluster/ssh_passphrase.h"

#include <termios.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>

#include "cluster/ssh_key.h"

namespace aorta::cluster {
namespace {

// One line from the terminal with echo off; the terminal's settings are restored
// before returning. nullopt when the terminal cannot be read.
std::optional<std::string> ask_on_terminal(const std::string& prompt) {
  termios saved{};
  if (::tcgetattr(STDIN_FILENO, &saved) != 0) return std::nullopt;
  termios quiet = saved;
  quiet.c_lflag &= ~static_cast<tcflag_t>(ECHO);
  quiet.c_lflag |= ECHONL;
  std::cerr << prompt << std::flush;
  if (::tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) != 0) return std::nullopt;
  std::string line;
  bool got = static_cast<bool>(std::getline(std::cin, line));
  ::tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
  if (!got) return std::nullopt;
  return line;
}

}  // namespace

bool private_key_encrypted(const std::filesystem::path& key_file) {
  std::string text = read_key_file(key_file);
  const std::string begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
  size_t start = text.find(begin);
  size_t end = text.find("-----END OPENSSH PRIVATE KEY-----");
  if (start == std::string::npos || end == std::string::npos)
    return text.find("ENCRYPTED") != std::string::npos;  // PEM: Proc-Type: 4,ENCRYPTED or PKCS#8
  // "openssh-key-v1\0", then the cipher name as a 4-byte big-endian length and text.
  std::string blob = openssh_key_blob(text.substr(start + begin.size(), end - start - begin.size()));
  const std::string magic("openssh-key-v1\0", 15);
  if (blob.size() < magic.size() + 4 || blob.compare(0, magic.size(), magic) != 0) return false;
  size_t length = 0;
  for (size_t i = 0; i < 4; ++i) length = (length << 8) | static_cast<unsigned char>(blob[magic.size() + i]);
  return blob.substr(magic.size() + 4, length) != "none";
}

Result<std::string> key_passphrase(const std::filesystem::path& key_file, const PassphraseSource& source) {
  if (!private_key_encrypted(key_file)) return std::string();
  const std::string key = key_file.string();
  if (!source.env_name.empty()) {
    const char* value = std::getenv(source.env_name.c_str());
    if (value && *value) return std::string(value);
    return Error{ErrorCode::kInvalidInput,
                 "private key " + key + " is encrypted and the environment variable " + source.env_name +
                     " (named by \"ssh\": {\"key_passphrase_env\"} in the cluster file) is not set or empty: "
                     "export it with the key's passphrase",
                 ""};
  }
  if (source.may_ask && ::isatty(STDIN_FILENO)) {
    auto typed = ask_on_terminal("Enter passphrase for key " + key + ": ");
    if (typed && !typed->empty()) return *typed;
  }
  return Error{ErrorCode::kInvalidInput,
               "private key " + key + " is encrypted and no passphrase is available: name an environment "
               "variable holding it (\"ssh\": {\"key_passphrase_env\": \"AORTA_KEY_PASSPHRASE\"} in the cluster "
               "file), run from a terminal to be asked, or load the key into ssh-agent (ssh-add " + key +
                   ") and leave priv_key_file out",
               ""};
}

}  // namespace aorta::cluster
