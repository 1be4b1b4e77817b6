// Runs commands on this machine through Boost.Process: the embedded default's one
// node, and bare-metal single-node runs without sshd.
#pragma once

#include "cluster/transport.h"

namespace aorta::cluster {

class LocalTransport final : public Transport {
 public:
  Result<CommandResult> run(const std::string& host, const std::string& command,
                            std::chrono::seconds timeout) override;
  Result<StreamResult> stream(const std::string& host, const std::string& command,
                              const std::filesystem::path& local_path, std::chrono::seconds timeout,
                              uint64_t max_bytes) override;
  Status download(const std::string& host, const std::string& remote_path, const std::filesystem::path& local_path,
                  uint64_t max_bytes) override;
  std::string name() const override { return "local"; }
};

}  // namespace aorta::cluster
