// SshConnection's file copy over SFTP: one subsystem per session, started on the
// first copy either way; a copy bounded by max_bytes leaves the session usable.
#include <libssh2.h>
#include <libssh2_sftp.h>

#include <fstream>
#include <optional>

#include "cluster/ssh_connection.h"
#include "cluster/ssh_retry.h"

namespace aorta::cluster {
namespace asio = boost::asio;
using asio::awaitable;

awaitable<Status> SshConnection::start_sftp(Deadline deadline, const std::string& timed_out) {
  if (!session_)
    if (Status s = co_await connect(); !s) co_return s.error();
  if (!sftp_) {
    auto sftp = co_await retry([&] { return libssh2_sftp_init(session_); }, deadline);
    if (!sftp) co_return fail(ErrorCode::kTimeout, timed_out);
    if (!*sftp) co_return fail(ErrorCode::kIo, "cannot start SFTP (is the sftp subsystem enabled?): " + last_error());
    sftp_ = *sftp;
  }
  co_return ok_status();
}

awaitable<Status> SshConnection::download(const std::string& remote_path, const std::filesystem::path& local_path,
                                          Deadline deadline, uint64_t max_bytes) {
  const std::string timed_out = "download of " + remote_path + " did not finish in time";
  if (Status s = co_await start_sftp(deadline, timed_out); !s) co_return s.error();
  auto handle = co_await retry([&] { return libssh2_sftp_open_ex(sftp_, remote_path.c_str(), static_cast<unsigned>(remote_path.size()),
                                       LIBSSH2_FXF_READ, 0, LIBSSH2_SFTP_OPENFILE); }, deadline);
  if (!handle) co_return fail(ErrorCode::kTimeout, timed_out);
  if (!*handle) {
    unsigned long code = libssh2_sftp_last_error(sftp_);
    if (code == LIBSSH2_FX_NO_SUCH_FILE) co_return Error{ErrorCode::kNotFound, "no such file: " + remote_path, host_};
    co_return Error{ErrorCode::kIo, "cannot open " + remote_path + " (SFTP status " + std::to_string(code) + ")",
                    host_};
  }
  std::ofstream out(local_path, std::ios::binary | std::ios::trunc);
  // libssh2 1.10 sends read requests (30000 bytes each) ahead in proportion to the
  // buffer sftp_read is given: 4 MiB keeps many more in flight than 256 KiB did.
  std::vector<char> buffer(4 << 20);
  bool read_failed = false, over = false;
  uint64_t copied = 0;
  for (;;) {
    auto n = co_await retry([&] { return libssh2_sftp_read(*handle, buffer.data(), buffer.size()); }, deadline);
    if (!n) co_return fail(ErrorCode::kTimeout, timed_out);
    if (*n < 0) {
      read_failed = true;
      break;
    }
    if (*n == 0) break;
    // Past the limit: the handle is closed as after a whole file (its reads in flight
    // dropped), so the session serves the next command.
    over = static_cast<uint64_t>(*n) > max_bytes - copied;
    if (over) break;
    out.write(buffer.data(), *n);
    copied += static_cast<uint64_t>(*n);
  }
  auto closed = co_await retry([&] { return libssh2_sftp_close_handle(*handle); }, deadline);
  if (!closed) co_return fail(ErrorCode::kTimeout, timed_out);
  if (read_failed) co_return fail(ErrorCode::kIo, "reading " + remote_path + " failed: " + last_error());
  if (over) co_return copy_over_limit(host_, local_path, max_bytes);
  out.close();
  if (!out) co_return Error{ErrorCode::kIo, "writing " + local_path.string() + " failed (disk full?)", host_};
  co_return ok_status();
}

awaitable<Status> SshConnection::upload(const std::filesystem::path& local_path, const std::string& remote_path,
                                        Deadline deadline) {
  const std::string timed_out = "upload of " + local_path.string() + " to " + remote_path + " did not finish in time";
  std::ifstream in(local_path, std::ios::binary);
  if (!in) co_return Error{ErrorCode::kIo, "cannot read " + local_path.string(), host_};
  if (Status s = co_await start_sftp(deadline, timed_out); !s) co_return s.error();
  auto handle = co_await retry([&] {
    return libssh2_sftp_open_ex(sftp_, remote_path.c_str(), static_cast<unsigned>(remote_path.size()),
                                LIBSSH2_FXF_WRITE | LIBSSH2_FXF_CREAT | LIBSSH2_FXF_TRUNC,
                                LIBSSH2_SFTP_S_IRUSR | LIBSSH2_SFTP_S_IWUSR, LIBSSH2_SFTP_OPENFILE);
  }, deadline);
  if (!handle) co_return fail(ErrorCode::kTimeout, timed_out);
  if (!*handle)
    co_return Error{ErrorCode::kIo, "cannot create " + remote_path + " (SFTP status " +
                                        std::to_string(libssh2_sftp_last_error(sftp_)) + ")", host_};
  std::vector<char> buffer(1 << 20);
  bool write_failed = false;
  while (!write_failed && (in.read(buffer.data(), static_cast<std::streamsize>(buffer.size())) || in.gcount() > 0)) {
    const size_t size = static_cast<size_t>(in.gcount());
    for (size_t sent = 0; sent < size;) {
      auto n = co_await retry([&] { return libssh2_sftp_write(*handle, buffer.data() + sent, size - sent); }, deadline);
      if (!n) co_return fail(ErrorCode::kTimeout, timed_out);
      if (*n <= 0) {
        write_failed = true;
        break;
      }
      sent += static_cast<size_t>(*n);
    }
  }
  auto closed = co_await retry([&] { return libssh2_sftp_close_handle(*handle); }, deadline);
  if (!closed) co_return fail(ErrorCode::kTimeout, timed_out);
  if (write_failed || *closed != 0)
    co_return Error{ErrorCode::kIo, "writing " + remote_path + " failed (SFTP status " +
                                        std::to_string(libssh2_sftp_last_error(sftp_)) + "; the node's disk full?)",
                    host_};
  if (in.bad()) co_return Error{ErrorCode::kIo, "reading " + local_path.string() + " failed", host_};
  co_return ok_status();
}

}  // namespace aorta::cluster
