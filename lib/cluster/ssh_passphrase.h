// The private key's passphrase, found before any node is contacted: from the
// environment variable the cluster file names, else asked once on the terminal.
// The passphrase is held only in SshOptions and never logged or reported.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"

namespace aorta::cluster {

// True when the key file is encrypted (OpenSSH format with a cipher other than
// "none", or a PEM key with "ENCRYPTED" in its header).
bool private_key_encrypted(const std::filesystem::path& key_file);

// Where the passphrase may come from.
struct PassphraseSource {
  std::string env_name;      // the cluster file's ssh.key_passphrase_env; empty: none named
  bool may_ask = true;       // ask on the terminal when stdin is one and no variable is named
};

// The passphrase for `key_file`: "" when the key is not encrypted; an error that says
// how to provide it when none is available.
Result<std::string> key_passphrase(const std::filesystem::path& key_file, const PassphraseSource& source);

}  // namespace aorta::cluster
