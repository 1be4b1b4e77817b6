// SshConnection::retry, shared by the files that implement SshConnection (set-up,
// authentication, commands, SFTP): libssh2 in non-blocking mode answers EAGAIN, as a
// code or as a null handle, until the socket is ready.
#pragma once

#include <libssh2.h>

#include "cluster/ssh_connection.h"

// In the files SshConnection is split into, g++ inlines asio's coroutine frame
// allocation and then warns, falsely, that the frame is freed by a mismatched delete
// (GCC PR middle-end/109224; the one big file had escaped it). Silenced for the files
// that include this one, all of them SshConnection's coroutines.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

namespace aorta::cluster {
namespace ssh_detail {
inline bool would_block(LIBSSH2_SESSION*, long rc) { return rc == LIBSSH2_ERROR_EAGAIN; }
template <typename T>
bool would_block(LIBSSH2_SESSION* session, T* handle) {
  return handle == nullptr && libssh2_session_last_errno(session) == LIBSSH2_ERROR_EAGAIN;
}
}  // namespace ssh_detail

template <typename Call>
boost::asio::awaitable<std::optional<std::invoke_result_t<Call>>> SshConnection::retry(Call call, Deadline deadline) {
  for (;;) {
    auto value = call();
    if (!ssh_detail::would_block(session_, value)) co_return value;
    if (!co_await wait_socket(deadline)) co_return std::nullopt;
  }
}

}  // namespace aorta::cluster
