#include "cluster/local_transport.h"

#include <signal.h>
#include <sys/wait.h>

#include <boost/asio/io_context.hpp>
#include <boost/process.hpp>

namespace aorta::cluster {
namespace bp = boost::process;

Result<CommandResult> LocalTransport::run(const std::string& host, const std::string& command,
                                          std::chrono::seconds timeout) {
  try {
    boost::asio::io_context ctx;
    std::future<std::string> output;
    bp::group group;
    // exec 2>&1 interleaves stderr with stdout in the order the command wrote them.
    bp::child child(bp::search_path("bash"), "-c", "exec 2>&1\n" + command, bp::std_in < bp::null,
                    bp::std_out > output, ctx, group);
    ctx.run_for(timeout);
    if (!ctx.stopped()) {
      group.terminate();  // SIGKILL to the whole group: nothing the command started survives
      child.wait();
      return Error{ErrorCode::kTimeout, "command did not finish within " + std::to_string(timeout.count()) + "s", host};
    }
    child.wait();
    // ~group() kills the group it still owns; a detached job the command started
    // (nohup setsid ... &) may not have left the group yet, so let go of it.
    group.detach();
    return CommandResult{child.exit_code(), output.get()};
  } catch (const std::exception& e) {
    return Error{ErrorCode::kCommandFailed, std::string("could not run command: ") + e.what(), host};
  }
}

Result<StreamResult> LocalTransport::stream(const std::string& host, const std::string& command,
                                            const std::filesystem::path& local_path, std::chrono::seconds timeout) {
  try {
    boost::asio::io_context ctx;
    std::future<std::string> errors;
    bp::group group;
    bp::child child(bp::search_path("bash"), "-c", command, bp::std_in < bp::null, bp::std_out > local_path.string(),
                    bp::std_err > errors, ctx, group);
    ctx.run_for(timeout);
    if (!ctx.stopped()) {
      group.terminate();
      child.wait();
      return Error{ErrorCode::kTimeout, "command did not finish within " + std::to_string(timeout.count()) + "s", host};
    }
    child.wait();
    group.detach();
    StreamResult result{child.exit_code(), 0, errors.get()};
    if (result.errors.size() > kStreamErrorsKept) result.errors.resize(kStreamErrorsKept);
    std::error_code ec;
    uintmax_t size = std::filesystem::file_size(local_path, ec);
    if (ec) return Error{ErrorCode::kIo, "cannot read back " + local_path.string() + ": " + ec.message(), host};
    result.bytes = size;
    return result;
  } catch (const std::exception& e) {
    return Error{ErrorCode::kCommandFailed, std::string("could not run command: ") + e.what(), host};
  }
}

Status LocalTransport::download(const std::string& host, const std::string& remote_path,
                                const std::filesystem::path& local_path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(remote_path, ec))
    return Error{ErrorCode::kNotFound, "no such file: " + remote_path, host};
  std::filesystem::copy_file(remote_path, local_path, std::filesystem::copy_options::overwrite_existing, ec);
  if (ec) return Error{ErrorCode::kIo, "copy of " + remote_path + " failed: " + ec.message(), host};
  return ok_status();
}

}  // namespace aorta::cluster
