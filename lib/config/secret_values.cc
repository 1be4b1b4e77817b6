#include "config/secret_values.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <set>
#include <string_view>

#include "redact/redact.h"
#include "common/shell_quote.h"

namespace aorta::config {
namespace {

bool iequals(std::string_view a, std::string_view b) {
  return a.size() == b.size() &&
         std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) { return std::tolower(x) == std::tolower(y); });
}

// hf_token_file, priv_key_file, key_passphrase_env: the key names where a secret is
// kept, and its value (a path, a variable's name) is not searched for in every log.
std::string_view last_word(std::string_view key) {
  const size_t end = key.find_last_of("_-.");
  return end == std::string_view::npos ? key : key.substr(end + 1);
}

bool names_a_place(std::string_view key) {
  for (std::string_view place : {"file", "path", "dir", "env"})
    if (iequals(last_word(key), place)) return true;
  return false;
}

// The objects whose entries are environment variables for the training.
bool is_environment(std::string_view key) { return key == "env" || key == "extra_env" || key == "env_vars"; }

// Variables that tune the GPU, communication and threading stack: settings, never a
// credential.
bool tunes_the_stack(std::string_view name) {
  static constexpr std::array<std::string_view, 24> kPrefixes = {
      "NCCL_",   "RCCL_",  "HIP_",   "HSA_", "ROCR_", "ROCM_", "ROCBLAS_", "HIPBLASLT_", "TENSILE_", "MIOPEN_", "AMD_",  "GPU_",
      "CUDA_",   "NVIDIA_", "OMP_",  "MKL_", "KMP_",  "GLOO_", "UCX_",     "FI_",        "TORCH_",   "PYTORCH_", "TRITON_",
      "MASTER_"};
  return std::any_of(kPrefixes.begin(), kPrefixes.end(), [&](std::string_view p) { return name.starts_with(p); });
}

// A value that says how, not who: no letters at all (counts, sizes, device lists,
// addresses), a switch or log level, or a path or list of paths.
bool is_plain_setting(std::string_view value) {
  if (std::none_of(value.begin(), value.end(), [](unsigned char c) { return std::isalpha(c); })) return true;
  for (std::string_view word : {"true", "false", "enable", "enabled", "disable", "disabled", "default", "warning",
                                "version", "verbose", "offline", "online", "error", "debug", "trace", "info"})
    if (iequals(value, word)) return true;
  for (size_t start = 0; start <= value.size();) {
    const size_t colon = std::min(value.find(':', start), value.size());
    const std::string_view part = value.substr(start, colon - start);
    if (part.empty() || !(part[0] == '/' || part[0] == '~' || part[0] == '.' || part[0] == '$')) return false;
    start = colon + 1;
  }
  return true;
}

struct Collector {
  std::set<std::string> settings;  // the config's string values outside its environment blocks
  std::vector<std::string> out;

  void found_in(std::string_view text) {
    for (auto& s : redact::secrets_in_text(text)) out.push_back(std::move(s));
  }

  // A value the training gets in its environment is a secret unless it is plainly none:
  // a variable named like a secret holds one whatever it looks like; SSHPASS,
  // REDISCLI_AUTH or MY_APP_CRED may too, so any other value counts unless it is a
  // plain setting, a variable of the stack, a name (RUN_NAME, SESSION_NAME) or a value
  // the config also uses as an ordinary one (the model's id).
  void environment(const json& block) {
    for (const auto& [name, value] : block.items()) {
      if (value.is_object() || value.is_array() || value.is_null() || value.is_boolean()) {
        collect(value, name);
        continue;
      }
      const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      if (names_a_place(name) || text.empty()) continue;
      const bool plainly_none = is_plain_setting(text) || tunes_the_stack(name) || settings.count(text) > 0;
      if (!iequals(last_word(name), "name") && (redact::looks_like_secret_key(name) || !plainly_none))
        out.push_back(text);
      else
        found_in(text);
    }
  }

  void collect(const json& value, std::string_view key) {
    if (value.is_object()) {
      for (const auto& [name, child] : value.items())
        if (is_environment(name) && child.is_object())
          environment(child);
        else
          collect(child, name);
    } else if (value.is_array()) {
      // An argument list: "--password", "x" are two elements, read as the command line.
      std::vector<std::string> words;
      for (const auto& child : value) {
        collect(child, key);
        if (child.is_string()) words.push_back(child.get<std::string>());
      }
      found_in(shell_join(words));
    } else if (!value.is_null() && !value.is_boolean()) {
      const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
      // A place (priv_key_file, hf_token_file) is no secret, however random its path
      // looks: searching for it would blank the key's path in every error naming it.
      if (text.empty() || names_a_place(key)) return;
      if (redact::is_secret_key(key) || (redact::looks_like_secret_key(key) && redact::is_high_entropy(text)))
        out.push_back(text);
      else
        found_in(text);
    }
  }
};

// The string values outside the environment blocks, but those under a key named like
// a secret's.
void gather_settings(const json& value, std::string_view key, bool in_environment, std::set<std::string>& settings) {
  if (value.is_object()) {
    for (const auto& [name, child] : value.items())
      gather_settings(child, name, in_environment || is_environment(name), settings);
  } else if (value.is_array()) {
    for (const auto& child : value) gather_settings(child, key, in_environment, settings);
  } else if (value.is_string() && !in_environment && !redact::looks_like_secret_key(key)) {
    settings.insert(value.get<std::string>());
  }
}

}  // namespace

std::vector<std::string> secret_values(const json& doc) {
  Collector c;
  gather_settings(doc, "", false, c.settings);
  c.collect(doc, "");
  return std::move(c.out);
}

}  // namespace aorta::config
