#include "srun_transport.h"

#include "cluster/ssh_transport.h"
#include "common/shell_quote.h"

namespace aorta::cluster {

namespace {
// `script` run with bash as one task on `host`, beside the job's other steps.
std::string srun_bash(const std::string& job_id, const std::string& host, const std::string& script) {
  return "srun --jobid=" + shell_quote(job_id) + " --nodes=1 --ntasks=1 --nodelist=" + shell_quote(host) +
         " --overlap --quiet --kill-on-bad-exit=1 bash -c " + shell_quote(script);
}
}  // namespace

std::string srun_command(const std::string& job_id, const std::string& host, const std::string& command,
                         std::chrono::seconds timeout) {
  return srun_bash(job_id, host, ssh_remote_command(command, timeout));
}

std::string srun_stream_command(const std::string& job_id, const std::string& host, const std::string& command,
                                std::chrono::seconds timeout) {
  return srun_bash(job_id, host, ssh_stream_command(command, timeout));
}

Result<StreamResult> SrunTransport::stream(const std::string& host, const std::string& command,
                                           const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                           uint64_t max_bytes) {
  auto started = std::chrono::steady_clock::now();
  auto r = local_.stream(host, srun_stream_command(job_id_, host, command, timeout), local_path,
                         timeout + std::chrono::seconds(20), max_bytes);
  return remote_timeout_as_error(std::move(r), std::chrono::steady_clock::now() - started, timeout, host);
}

Result<CommandResult> SrunTransport::run(const std::string& host, const std::string& command,
                                         std::chrono::seconds timeout) {
  // The local limit is a little longer: the node's own timeout ends the command first.
  auto started = std::chrono::steady_clock::now();
  auto r = local_.run(host, srun_command(job_id_, host, command, timeout), timeout + std::chrono::seconds(20));
  return remote_timeout_as_error(std::move(r), std::chrono::steady_clock::now() - started, timeout, host);
}

Status SrunTransport::download(const std::string& host, const std::string& remote_path,
                               const std::filesystem::path& local_path, uint64_t max_bytes) {
  return local_.download(host, remote_path, local_path, max_bytes);
}

}  // namespace aorta::cluster
