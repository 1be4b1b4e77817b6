// Checks on the private key file before any node is contacted, so a bad key is one
// clear error instead of N authentication failures.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"

namespace aorta::cluster {

// The key file's text ("" when it cannot be read): the other checks decide what that means.
std::string read_key_file(const std::filesystem::path& key_file);

// "ssh-ed25519", "ssh-rsa", "ecdsa-sha2-nistp256", ... or "" when the file does not say.
std::string private_key_type(const std::filesystem::path& key_file);

// Refuses a missing or unreadable key, and one that group or others may read (as
// OpenSSH does), naming the file and the chmod that fixes it.
Status check_private_key(const std::filesystem::path& key_file);

// The binary of an OpenSSH private key: the base64 text between its BEGIN and END lines, decoded.
std::string openssh_key_blob(const std::string& armored_body);

// Why libssh2 1.10 cannot log in with this key, when the key type explains it.
std::string key_type_hint(const std::filesystem::path& key_file);

}  // namespace aorta::cluster
