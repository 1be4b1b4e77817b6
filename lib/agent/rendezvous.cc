#include "agent/rendezvous.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/atomic_file.h"

namespace aorta::agent {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr size_t kSecretBytes = 32;
constexpr auto kPoll = std::chrono::milliseconds(50);

Error io_error(const fs::path& path, const std::string& what) {
  return Error{ErrorCode::kIo, what + ": " + std::strerror(errno), path.string()};
}

// A folder that is this user's, not a link, and private; the reason it is not.
std::string private_folder_problem(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return std::strerror(errno);
  if (!S_ISDIR(st.st_mode)) return "not a folder (a link or a file)";
  if (st.st_uid != ::geteuid()) return "owned by uid " + std::to_string(st.st_uid) + ", not this user";
  if (st.st_mode & 077) return "readable or writable by others (mode must be 0700)";
  return "";
}

// mkdir -p where each folder made is private from the start (0700): the root is
// aorta_path's parent, which the clone may not have made yet.
bool make_private_folders(const fs::path& path) {
  fs::path sofar;
  for (const auto& part : path) {
    sofar /= part;
    if (::mkdir(sofar.c_str(), 0700) != 0 && errno != EEXIST) return false;
  }
  return true;
}

std::string random_secret() {
  std::ifstream urandom("/dev/urandom", std::ios::binary);
  unsigned char bytes[kSecretBytes] = {};
  urandom.read(reinterpret_cast<char*>(bytes), sizeof bytes);
  if (urandom.gcount() != static_cast<std::streamsize>(sizeof bytes)) return "";
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned char b : bytes) hex += {kHex[b >> 4], kHex[b & 15]};
  return hex;
}

// The secret file, read only when it is a private regular file of this user.
Result<std::string> read_secret(const fs::path& path) {
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Error{ErrorCode::kNotFound, std::strerror(errno), path.string()};
  struct stat st {};
  std::string text(2 * kSecretBytes + 1, '\0');
  ssize_t n = ::fstat(fd, &st) == 0 ? ::read(fd, text.data(), text.size()) : -1;
  ::close(fd);
  if (!S_ISREG(st.st_mode) || st.st_uid != ::geteuid() || (st.st_mode & 077))
    return Error{ErrorCode::kInvalidInput, "the secret must be a regular file of this user with mode 0600", path.string()};
  if (n != static_cast<ssize_t>(2 * kSecretBytes))
    return Error{ErrorCode::kInvalidInput, "the secret is not " + std::to_string(2 * kSecretBytes) + " characters",
                 path.string()};
  text.resize(static_cast<size_t>(n));
  return text;
}

std::string usual_name() { return ".aorta_suite_agents." + std::to_string(::geteuid()); }

// The folder of this user's rendezvous under `root`: the usual name, or, when another
// user made that name first (a shared sticky parent), a fresh unpredictable one beside
// it (mkdtemp: 0700, this user's), which agents find by its owner, not by its name.
Result<fs::path> own_folder(const fs::path& root) {
  const fs::path usual = root / usual_name();
  if (!make_private_folders(usual)) return io_error(usual, "cannot create the agents' folder");
  struct stat st {};
  if (::lstat(usual.c_str(), &st) == 0 && st.st_uid != ::geteuid()) {
    std::string fresh = (root / (usual_name() + ".XXXXXX")).string();
    if (!::mkdtemp(fresh.data()))
      return io_error(root, "cannot create the agents' folder beside " + usual.string() + " (another user's)");
    return fs::path(fresh);
  }
  if (auto problem = private_folder_problem(usual); !problem.empty())
    return Error{ErrorCode::kInvalidInput, "the agents' folder is unsafe: " + problem, usual.string()};
  return usual;
}

// Where rank 0's folder for `job` is: under the usual name when that is this user's;
// else in the one fresh folder beside it that is this user's, private and holds the
// job's (another user can make names there, never a folder of this user's). Empty
// while there is none yet.
Result<fs::path> find_job_folder(const fs::path& root, const std::string& job) {
  const fs::path usual = root / usual_name();
  struct stat st {};
  if (::lstat(usual.c_str(), &st) != 0) return fs::path();
  if (st.st_uid == ::geteuid()) return usual / job;
  std::vector<fs::path> found;
  std::error_code ec;
  for (fs::directory_iterator it(root, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() != usual_name().size() + 7 || name.rfind(usual_name() + ".", 0) != 0) continue;
    if (private_folder_problem(it->path()).empty() && ::lstat((it->path() / job).c_str(), &st) == 0)
      found.push_back(it->path() / job);
  }
  if (found.size() > 1)
    return Error{ErrorCode::kInvalidInput,
                 "more than one of this user's agents' folders holds job " + job + " (" + found[0].string() + ", " +
                     found[1].string() + "): a job step has one rank 0; remove the stale one",
                 root.string()};
  return found.empty() ? fs::path() : found.front();
}

Result<Published> read_published(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::string text(4096, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  auto j = nlohmann::json::parse(text, nullptr, false);
  Published p;
  try {
    p = {j.at("rank").get<int>(), j.at("host").get<std::string>(), j.at("address").get<std::string>(),
         j.at("port").get<uint16_t>(), j.at("pid").get<long>()};
  } catch (const nlohmann::json::exception&) {
    return Error{ErrorCode::kInvalidInput, "not an agent's address file", path.string()};
  }
  return p;
}

}  // namespace

fs::path rendezvous_folder(const fs::path& root, const std::string& job) {
  // One folder per user: in a shared parent (a 1777 scratch, a group folder) another
  // user's folder never stands in this user's way.
  return root / usual_name() / job;
}

Result<Rendezvous> Rendezvous::create(const fs::path& root, const std::string& job) {
  auto parent = own_folder(root);
  if (!parent) return parent.error();
  Rendezvous r;
  r.folder_ = *parent / job;
  // Beside a squatted name, an earlier rank 0's folder for the job may be another fresh one.
  auto earlier = find_job_folder(root, job);
  const bool taken = !earlier || (!earlier->empty() && fs::exists(*earlier));
  if (taken || ::mkdir(r.folder_.c_str(), 0700) != 0) {
    const bool exists = taken || errno == EEXIST;
    const int why = errno;
    if (*parent != root / usual_name()) ::rmdir(parent->c_str());  // the fresh folder, made for nothing
    errno = why;
    if (exists)
      return Error{ErrorCode::kInvalidInput,
                   "job " + job + " already has a rank 0 (its agents' folder exists); a job step has one rank 0",
                   (taken && earlier ? *earlier : r.folder_).string()};
    return io_error(r.folder_, "cannot create the job's agents' folder");
  }
  r.secret_ = random_secret();
  if (r.secret_.empty()) return Error{ErrorCode::kIo, "cannot read 32 random bytes", "/dev/urandom"};
  // Written under another name, then renamed: an agent never reads half a secret.
  const fs::path draft = r.folder_ / "secret.draft";
  int fd = ::open(draft.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return io_error(draft, "cannot create the secret");
  bool written = ::write(fd, r.secret_.data(), r.secret_.size()) == static_cast<ssize_t>(r.secret_.size());
  written = ::fsync(fd) == 0 && written;
  ::close(fd);
  if (!written || ::rename(draft.c_str(), (r.folder_ / "secret").c_str()) != 0)
    return io_error(r.folder_ / "secret", "cannot write the secret");
  return r;
}

Result<Rendezvous> Rendezvous::join(const fs::path& root, const std::string& job, std::chrono::seconds wait) {
  Rendezvous r;
  const auto deadline = Clock::now() + wait;
  for (;;) {
    auto folder = find_job_folder(root, job);
    if (!folder) return folder.error();
    r.folder_ = folder->empty() ? rendezvous_folder(root, job) : *folder;
    if (auto secret = read_secret(r.folder_ / "secret"); secret) {
      for (const auto& folder : {r.folder_.parent_path(), r.folder_})
        if (auto problem = private_folder_problem(folder); !problem.empty())
          return Error{ErrorCode::kInvalidInput, "the agents' folder is unsafe: " + problem, folder.string()};
      r.secret_ = *secret;
      return r;
    } else if (secret.error().code != ErrorCode::kNotFound) {
      return secret.error();
    }
    if (Clock::now() >= deadline)
      return Error{ErrorCode::kTimeout,
                   "no secret from rank 0 within " + std::to_string(wait.count()) +
                       " s: is this folder on storage every node of the job sees at the same path?",
                   (r.folder_ / "secret").string()};
    std::this_thread::sleep_for(kPoll);
  }
}

Status Rendezvous::publish(const Published& me) const {
  nlohmann::json j = {{"rank", me.rank}, {"host", me.host}, {"address", me.address}, {"port", me.port}, {"pid", me.pid}};
  return write_file_atomically(folder_ / ("agent." + std::to_string(me.rank)), j.dump() + "\n");
}

Result<std::vector<Published>> Rendezvous::await(size_t agents, std::chrono::seconds wait,
                                                 const AwaitProgress& progress, const AwaitProblem& problem) const {
  const auto start = Clock::now();
  std::vector<Published> found(agents);
  std::set<size_t> ready;
  size_t shown = SIZE_MAX;
  for (;;) {
    for (size_t rank = 0; rank < agents; ++rank) {
      if (ready.count(rank)) continue;
      const fs::path file = folder_ / ("agent." + std::to_string(rank));
      if (!fs::exists(file)) continue;
      auto p = read_published(file);
      if (!p) return p.error();
      found[rank] = *p;
      ready.insert(rank);
    }
    const double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
    if (ready.size() != shown && progress) progress(ready.size(), agents, elapsed, wait.count() - elapsed);
    shown = ready.size();
    if (ready.size() == agents) return found;
    if (std::string why = problem ? problem() : ""; !why.empty())
      return Error{ErrorCode::kCommandFailed, why, folder_.string()};
    if (elapsed >= static_cast<double>(wait.count())) {
      std::string missing;
      for (size_t rank = 0; rank < agents; ++rank)
        if (!ready.count(rank)) missing += (missing.empty() ? "" : ", ") + std::to_string(rank);
      return Error{ErrorCode::kTimeout,
                   "no agent from rank(s) " + missing + " within " + std::to_string(wait.count()) +
                       " s; the config file, its threshold file and aorta_path's folder must be on storage every "
                       "node of the job sees at the same path",
                   folder_.string()};
    }
    std::this_thread::sleep_for(kPoll);
  }
}

void Rendezvous::remove() const {
  std::error_code ignored;
  if (folder_.empty()) return;
  fs::remove_all(folder_, ignored);
  // A fresh folder made beside another user's is this job's alone: it goes too.
  if (folder_.parent_path().filename() != usual_name()) ::rmdir(folder_.parent_path().c_str());
}

}  // namespace aorta::agent
