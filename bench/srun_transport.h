// The agents' baseline in bench/agent_bench: every command its own `srun --overlap`
// job step, as the suite ran managed nodes before the agents (issue 30). Files are
// read from storage the nodes share with this process, so a download is a local copy.
#pragma once

#include <string>

#include "cluster/local_transport.h"
#include "cluster/transport.h"

namespace aorta::cluster {

// The srun command line that runs `command` on `host` as one task of job `job_id`,
// beside the job's other steps (--overlap), under the same remote timeout as SSH.
std::string srun_command(const std::string& job_id, const std::string& host, const std::string& command,
                         std::chrono::seconds timeout);
// The same for a stream: stdout and stderr stay apart (srun forwards both).
std::string srun_stream_command(const std::string& job_id, const std::string& host, const std::string& command,
                                std::chrono::seconds timeout);

class SrunTransport final : public Transport {
 public:
  explicit SrunTransport(std::string job_id) : job_id_(std::move(job_id)) {}
  Result<CommandResult> run(const std::string& host, const std::string& command,
                            std::chrono::seconds timeout) override;
  Result<StreamResult> stream(const std::string& host, const std::string& command,
                              const std::filesystem::path& local_path, std::chrono::seconds timeout,
                              uint64_t max_bytes) override;
  Status download(const std::string& host, const std::string& remote_path, const std::filesystem::path& local_path,
                  uint64_t max_bytes) override;
  std::string name() const override { return "srun"; }

 private:
  std::string job_id_;
  LocalTransport local_;
};

}  // namespace aorta::cluster
