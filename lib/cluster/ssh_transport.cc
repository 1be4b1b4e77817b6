#include "cluster/ssh_transport.h"

#include <libssh2.h>

#include <algorithm>
#include <utility>
#include <thread>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/strand.hpp>

#include "cluster/ssh_key.h"
#include "cluster/ssh_passphrase.h"
#include "common/shell_quote.h"

namespace aorta::cluster {
namespace asio = boost::asio;
using Clock = std::chrono::steady_clock;

// The remote `timeout` ends the command first; the client waits this much longer
// before it gives up on the connection.
constexpr std::chrono::seconds kClientGrace{20};
// How long a further stream of a copy may take to connect: its files can go over the
// node's other streams meanwhile, but the batch waits for it.
constexpr std::chrono::seconds kFurtherStream{5};

std::string ssh_remote_command(const std::string& command, std::chrono::seconds timeout) {
  return "exec 2>&1; exec timeout -k 10 " + std::to_string(timeout.count()) + " bash -c " + shell_quote(command);
}

std::string ssh_stream_command(const std::string& command, std::chrono::seconds timeout) {
  return "exec timeout -k 10 " + std::to_string(timeout.count()) + " bash -c " + shell_quote(command);
}

Result<std::unique_ptr<SshTransport>> SshTransport::create(SshOptions options) {
  // Everything about the keys is settled here, before any node is contacted: a bad
  // key or a missing passphrase is one clear error instead of one per node.
  PassphraseSource source{options.key_passphrase_env, options.ask_passphrase};
  if (!options.private_key.empty()) {
    if (Status s = check_private_key(options.private_key); !s) return s.error();
    auto passphrase = key_passphrase(options.private_key, source);
    if (!passphrase) return passphrase.error();
    options.key_passphrase = std::move(*passphrase);
  }
  if (options.jump && !options.jump->private_key.empty()) {
    SshJumpOptions& jump = *options.jump;
    if (jump.private_key == options.private_key) {
      jump.key_passphrase = options.key_passphrase;
    } else {
      if (Status s = check_private_key(jump.private_key); !s)
        return Error{s.error().code, "jump host " + jump.host + ": " + s.error().message, ""};
      auto passphrase = key_passphrase(jump.private_key, source);
      if (!passphrase) return Error{passphrase.error().code, "jump host " + jump.host + ": " + passphrase.error().message, ""};
      jump.key_passphrase = std::move(*passphrase);
    }
  }
  static const int init = libssh2_init(0);
  if (init != 0) return Error{ErrorCode::kIo, "libssh2_init failed", ""};
  return std::unique_ptr<SshTransport>(new SshTransport(std::move(options)));
}

SshTransport::SshTransport(SshOptions options) : options_(std::move(options)) {
  if (options_.jump) jump_ = std::make_unique<SshJump>(io_, options_);
}

SshTransport::~SshTransport() {
  // Nodes first (each closes its end of its tunnel), then the bastion: its pump
  // coroutine is run until it has freed the channels and the session.
  connections_.clear();
  if (jump_) {
    jump_->stop();
    io_.restart();
    io_.run_for(std::chrono::seconds(10));
    jump_.reset();
  }
}

void SshTransport::spawn(std::function<asio::awaitable<void>()> work) {
  ++running_;
  asio::co_spawn(asio::make_strand(io_), std::move(work), [this](std::exception_ptr e) {
    if (e) {
      std::lock_guard lock(failure_mutex_);
      if (!failure_) failure_ = e;
    }
    // The jump host's pump never runs out of work: stop when the callers' work is done.
    if (--running_ == 0) io_.stop();
  });
}

void SshTransport::drive(size_t coroutines) {
  // Handshakes cost CPU (key exchange, signatures): spread them over the cores.
  // Each coroutine owns one connection and runs on its own strand, so no libssh2
  // session or socket is ever touched by two threads at once.
  size_t threads = std::clamp<size_t>(std::thread::hardware_concurrency(), 1, 16);
  threads = std::min(threads, std::max<size_t>(coroutines, 1));
  io_.restart();
  std::vector<std::thread> helpers;
  for (size_t i = 1; i < threads; ++i) helpers.emplace_back([this] { io_.run(); });
  io_.run();
  for (auto& t : helpers) t.join();
  if (failure_) std::rethrow_exception(std::exchange(failure_, nullptr));
}

SshConnection& SshTransport::connection(const std::string& host, size_t stream) {
  auto& slot = connections_[{host, stream}];
  if (!slot) slot = std::make_unique<SshConnection>(io_, host, options_, jump_.get());
  return *slot;
}

Result<CommandResult> SshTransport::run(const std::string& host, const std::string& command,
                                        std::chrono::seconds timeout) {
  return std::move(run_batch({host}, {command}, timeout).front());
}

std::vector<Result<CommandResult>> SshTransport::run_batch(const std::vector<std::string>& hosts,
                                                           const std::vector<std::string>& commands,
                                                           std::chrono::seconds timeout) {
  std::lock_guard lock(mutex_);
  std::vector<Result<CommandResult>> results(hosts.size(), Error{ErrorCode::kIo, "not run", ""});
  // A connection runs one command at a time: each host's commands go in order.
  std::map<std::string, std::vector<size_t>> by_host;
  for (size_t i = 0; i < hosts.size(); ++i) by_host[hosts[i]].push_back(i);
  for (auto& [host, indexes] : by_host) {
    SshConnection* c = &connection(host);
    spawn([&, c, indexes = indexes, host = host]() -> asio::awaitable<void> {
      for (size_t i : indexes) {
        auto started = Clock::now();
        auto r = co_await c->exec(ssh_remote_command(commands[i], timeout), started + timeout + kClientGrace);
        results[i] = remote_timeout_as_error(std::move(r), Clock::now() - started, timeout, host);
      }
    });
  }
  drive(by_host.size());
  return results;
}

Status SshTransport::download(const std::string& host, const std::string& remote_path,
                              const std::filesystem::path& local_path, uint64_t max_bytes) {
  std::lock_guard lock(mutex_);
  Status result = Error{ErrorCode::kIo, "not run", ""};
  SshConnection& c = connection(host);
  // Large traces take a while; the limit only catches a transfer that stalls.
  auto deadline = Clock::now() + std::chrono::minutes(30);
  spawn([&]() -> asio::awaitable<void> { result = co_await c.download(remote_path, local_path, deadline, max_bytes); });
  drive(1);
  return result;
}

std::vector<Status> SshTransport::upload_batch(const std::vector<UploadJob>& jobs, size_t hosts_at_once,
                                               std::chrono::seconds timeout) {
  std::lock_guard lock(mutex_);
  std::vector<Status> results(jobs.size(), Error{ErrorCode::kIo, "not run", ""});
  std::vector<std::string> hosts;
  std::map<std::string, std::vector<size_t>> of_host;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!of_host.count(jobs[i].host)) hosts.push_back(jobs[i].host);
    of_host[jobs[i].host].push_back(i);
  }
  // Connections are made here, before any coroutine runs: the map is not shared then.
  std::vector<SshConnection*> host_connection;
  for (const auto& host : hosts) host_connection.push_back(&connection(host));
  size_t next_host = 0;  // taken by the workers in turn; they all run on this io_context
  std::mutex next_mutex;
  const size_t workers = std::clamp<size_t>(hosts_at_once, 1, std::max<size_t>(hosts.size(), 1));
  for (size_t w = 0; w < workers; ++w) {
    spawn([&]() -> asio::awaitable<void> {
      for (;;) {
        size_t h;
        {
          std::lock_guard take(next_mutex);
          if (next_host == hosts.size()) break;
          h = next_host++;
        }
        bool failed = false;
        for (size_t i : of_host.at(hosts[h])) {
          if (failed) {
            results[i] = Error{ErrorCode::kIo, "skipped: an earlier file to this node failed", hosts[h]};
            continue;
          }
          results[i] = co_await host_connection[h]->upload(jobs[i].local_path, jobs[i].remote_path,
                                                           Clock::now() + timeout);
          failed = !results[i];
        }
      }
    });
  }
  drive(workers);
  return results;
}

Result<StreamResult> SshTransport::stream(const std::string& host, const std::string& command,
                                          const std::filesystem::path& local_path, std::chrono::seconds timeout,
                                          uint64_t max_bytes) {
  return std::move(copy_batch({CopyJob{host, command, "", local_path, max_bytes}}, 1, 1, timeout, {}).front());
}

std::vector<Result<StreamResult>> SshTransport::copy_batch(const std::vector<CopyJob>& jobs, size_t hosts_at_once,
                                                           size_t streams_per_host, std::chrono::seconds timeout,
                                                           const CopyDone& done) {
  std::lock_guard lock(mutex_);
  std::vector<Result<StreamResult>> results(jobs.size(), Error{ErrorCode::kIo, "not run", ""});
  CopyQueue queue(jobs, streams_per_host);
  // Connections are made here, before any coroutine runs: the map is not shared then.
  std::vector<SshConnection*> lane_connection;
  for (const auto& lane : queue.lanes()) lane_connection.push_back(&connection(queue.host(lane.host), lane.stream));
  const size_t workers = std::clamp<size_t>(hosts_at_once * std::max<size_t>(streams_per_host, 1), 1,
                                            std::max<size_t>(queue.lanes().size(), 1));
  for (size_t w = 0; w < workers; ++w) {
    spawn([&]() -> asio::awaitable<void> {
      while (auto next_lane = queue.next_lane()) {
        const size_t l = *next_lane;
        SshConnection* c = lane_connection[l];
        const size_t host = queue.lanes()[l].host;
        // A further stream is only for speed: none is opened for a node whose files
        // are all taken, and a node that refuses one (MaxStartups, a login limit) or
        // does not answer within a few seconds (a rate-limiting firewall) has its files
        // copied over the streams it allows, not failed.
        if (queue.lanes()[l].stream > 0 && !c->connected()) {
          bool usable = queue.has_next(host);
          if (usable) usable = static_cast<bool>(co_await c->connect(std::min(kFurtherStream, options_.connect_timeout)));
          if (!usable) {
            c->close();
            continue;
          }
        }
        while (auto next = queue.next(host)) {
          const size_t i = *next;
          const CopyJob& job = jobs[i];
          auto started = Clock::now();
          if (job.command.empty()) {
            // Large traces take a while; the limit only catches a transfer that stalls.
            results[i] = downloaded(
                co_await c->download(job.remote_path, job.local_path, started + std::chrono::minutes(30), job.max_bytes),
                job.local_path);
          } else {
            auto r = co_await c->exec_to_file(ssh_stream_command(job.command, timeout), job.local_path,
                                              started + timeout + kClientGrace, job.max_bytes);
            results[i] = remote_timeout_as_error(std::move(r), Clock::now() - started, timeout, job.host);
          }
          if (done && !done(i, results[i])) queue.stop(host, results);
        }
        // A further stream's connection ends with its lane: file descriptors stay at
        // one per node (two through a jump host) plus the streams in flight.
        if (queue.lanes()[l].stream > 0) c->close();
      }
    });
  }
  drive(workers);
  std::erase_if(connections_, [](const auto& entry) { return entry.first.second > 0; });
  return results;
}

}  // namespace aorta::cluster
