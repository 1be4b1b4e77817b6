#include "cluster/ssh_key.h"

#include <sys/stat.h>

#include <fstream>
#include <sstream>

#include <fmt/format.h>

namespace aorta::cluster {
namespace {

std::string base64_decode(const std::string& text) {
  static const std::string alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  unsigned value = 0;
  int bits = 0;
  for (char c : text) {
    size_t digit = alphabet.find(c);
    if (digit == std::string::npos) continue;  // line breaks, padding
    value = (value << 6) | static_cast<unsigned>(digit);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((value >> bits) & 0xff));
    }
  }
  return out;
}

}  // namespace

std::string read_key_file(const std::filesystem::path& key_file) {
  std::ifstream in(key_file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string openssh_key_blob(const std::string& armored_body) { return base64_decode(armored_body); }

std::string private_key_type(const std::filesystem::path& key_file) {
  std::string text = read_key_file(key_file);
  if (text.find("BEGIN RSA PRIVATE KEY") != std::string::npos) return "ssh-rsa";
  if (text.find("BEGIN EC PRIVATE KEY") != std::string::npos) return "ecdsa-sha2";
  const std::string begin = "-----BEGIN OPENSSH PRIVATE KEY-----";
  size_t start = text.find(begin);
  size_t end = text.find("-----END OPENSSH PRIVATE KEY-----");
  if (start == std::string::npos || end == std::string::npos) return "";
  // The public key blob, and with it the key type, is stored unencrypted after the
  // header: "openssh-key-v1\0", cipher, kdf, kdf options, key count, then the blob.
  std::string blob = openssh_key_blob(text.substr(start + begin.size(), end - start - begin.size()));
  for (const char* type : {"ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", "ecdsa-sha2-nistp384",
                           "ecdsa-sha2-nistp521", "ssh-dss"})
    if (blob.find(type) != std::string::npos) return type;
  return "";
}

Status check_private_key(const std::filesystem::path& key_file) {
  struct stat st {};
  if (::stat(key_file.c_str(), &st) != 0)
    return Error{ErrorCode::kNotFound, "private key file " + key_file.string() + " does not exist", ""};
  if (!S_ISREG(st.st_mode))
    return Error{ErrorCode::kInvalidInput, "private key file " + key_file.string() + " is not a regular file", ""};
  if (st.st_mode & 077)
    return Error{ErrorCode::kInvalidInput,
                 fmt::format("private key file {} has permissions {:04o}: others may read it; "
                             "run chmod 600 {} (OpenSSH refuses such keys too)",
                             key_file.string(), st.st_mode & 07777, key_file.string()), ""};
  std::ifstream in(key_file);
  if (!in) return Error{ErrorCode::kIo, "private key file " + key_file.string() + " cannot be read", ""};
  return ok_status();
}

std::string key_type_hint(const std::filesystem::path& key_file) {
  if (private_key_type(key_file) == "ssh-rsa")
    return "; " + key_file.string() +
           " is an RSA key: libssh2 1.10 signs only with ssh-rsa (SHA-1), which OpenSSH 8.8 and later "
           "refuse by default. Use an ed25519 or ecdsa key (ssh-keygen -t ed25519), or allow "
           "'PubkeyAcceptedAlgorithms +ssh-rsa' on the nodes";
  return "";
}

}  // namespace aorta::cluster
