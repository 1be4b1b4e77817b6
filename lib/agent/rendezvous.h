// Where a managed run's rank 0 and its agents meet: a private folder (0700) on the
// storage every node of the job sees, holding the job's secret (0600) and one
// address file per agent. Only this user can read the secret, so only this user's
// rank 0 can use the agents.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "common/result.h"

namespace aorta::agent {

// What an agent tells rank 0: where it listens, for which node and rank.
struct Published {
  int rank = 0;
  std::string host;     // the node's name as the job knows it
  std::string address;  // the address it listens on
  uint16_t port = 0;
  long pid = 0;
};

// ready agents of `of`, seconds since the wait began, seconds left.
using AwaitProgress = std::function<void(size_t ready, size_t of, double elapsed, double left)>;
// Asked while waiting: a reason to stop (an agent launcher that ended), or empty.
using AwaitProblem = std::function<std::string()>;

class Rendezvous {
 public:
  // Rank 0: <root>/.aorta_suite_agents.<uid>/<job>/, new (a second rank 0 of the same job
  // is refused), and its secret. When another user made .aorta_suite_agents.<uid> (a
  // shared sticky root), a fresh .aorta_suite_agents.<uid>.XXXXXX of this user's
  // beside it instead.
  static Result<Rendezvous> create(const std::filesystem::path& root, const std::string& job);
  // An agent: waits up to `wait` for rank 0's folder and secret (beside a squatted
  // name: the one fresh folder of this user's that holds the job's), and checks that
  // both are this user's and private.
  static Result<Rendezvous> join(const std::filesystem::path& root, const std::string& job, std::chrono::seconds wait);

  const std::string& secret() const { return secret_; }
  const std::filesystem::path& folder() const { return folder_; }
  // agent.<rank>, written whole.
  Status publish(const Published& me) const;
  // Rank 0: every rank 0..agents-1 published, or an error naming those that did not
  // within `wait` (and what to check).
  Result<std::vector<Published>> await(size_t agents, std::chrono::seconds wait, const AwaitProgress& progress,
                                       const AwaitProblem& problem) const;
  // Rank 0, at the end: the folder and what is in it.
  void remove() const;

 private:
  std::filesystem::path folder_;
  std::string secret_;
};

// The folder's usual path for a job, without touching anything (folder() says where
// rank 0 made it).
std::filesystem::path rendezvous_folder(const std::filesystem::path& root, const std::string& job);

}  // namespace aorta::agent
