#include "slurm/job.h"

#include <algorithm>
#include <cctype>

#include "common/utf8.h"
#include "slurm/hostlist.h"

namespace aorta::slurm {

namespace {

constexpr size_t kMaxJobIdBytes = 64;

bool folder_safe(const std::string& id) {
  if (id.empty() || id.size() > kMaxJobIdBytes || !std::isalnum(static_cast<unsigned char>(id.front()))) return false;
  return std::all_of(id.begin(), id.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

}  // namespace

Result<std::string> job_id_from_environment(const Getenv& getenv) {
  const char* id = getenv("SLURM_JOB_ID");
  if (!id || !*id) return std::string();
  if (!folder_safe(id))
    return Error{ErrorCode::kInvalidInput,
                 "SLURM_JOB_ID '" + printable_text(id, kMaxJobIdBytes) + "' is not a job id: it names the run's "
                 "folders, so it must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit "
                 "(Slurm sets digits); unset it, or set CVS_SCHEDULER=bare_metal to run as outside a job",
                 "SLURM_JOB_ID"};
  return std::string(id);
}

Result<std::optional<SlurmJob>> job_from_environment(const Getenv& getenv) {
  auto id = job_id_from_environment(getenv);
  if (!id) return id.error();
  if (id->empty()) return std::optional<SlurmJob>{};
  SlurmJob job;
  job.id = *id;
  const char* list_name = "SLURM_JOB_NODELIST";
  const char* list = getenv(list_name);
  if (!list || !*list) list = getenv(list_name = "SLURM_NODELIST");
  if (!list || !*list)
    return Error{ErrorCode::kInvalidInput, "Slurm job " + job.id + " has no SLURM_JOB_NODELIST", "slurm"};
  auto nodes = expand_hostlist(list);
  if (!nodes) return Error{ErrorCode::kInvalidInput, nodes.error().message, list_name};
  job.nodes = *nodes;
  if (const char* gpus = getenv("SLURM_GPUS_ON_NODE"); gpus && *gpus) {
    job.gpus_per_node = std::atoi(gpus);
  } else if (const char* ids = getenv("SLURM_JOB_GPUS"); ids && *ids) {
    job.gpus_per_node = static_cast<int>(std::count(ids, ids + std::string_view(ids).size(), ',')) + 1;
  }
  return std::optional<SlurmJob>{job};
}

Result<config::Cluster> cluster_from_job(const SlurmJob& job, const std::string& user,
                                         const config::Cluster* cluster_file) {
  config::Cluster c;
  if (cluster_file) {
    c = *cluster_file;
    std::vector<std::string> outside;
    for (const auto& n : c.nodes)
      if (std::find(job.nodes.begin(), job.nodes.end(), n.name) == job.nodes.end()) outside.push_back(n.name);
    if (!outside.empty()) {
      std::string names;
      for (const auto& n : outside) names += (names.empty() ? "" : ", ") + n;
      return Error{ErrorCode::kInvalidInput,
                   "node(s) " + names + " are not in Slurm job " + job.id + " (its nodes: " +
                       std::to_string(job.nodes.size()) + ", first " + job.nodes.front() +
                       "); list only this job's nodes",
                   c.file.string()};
    }
    return c;
  }
  c.username = user;
  for (const auto& host : job.nodes) c.nodes.push_back({host, host, ""});
  return c;
}

std::optional<long> parse_time_left(const std::string& text) {
  std::string t = text.substr(0, text.find_last_not_of(" \n\r\t") + 1);
  long days = 0;
  if (size_t dash = t.find('-'); dash != std::string::npos) {
    if (dash == 0 || t.find_first_not_of("0123456789") != dash) return std::nullopt;
    days = std::stol(t.substr(0, dash));
    t = t.substr(dash + 1);
  }
  std::vector<long> parts;
  size_t start = 0;
  while (start <= t.size()) {
    size_t colon = t.find(':', start);
    std::string part = t.substr(start, colon == std::string::npos ? std::string::npos : colon - start);
    if (part.empty() || part.size() > 9 || part.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
    parts.push_back(std::stol(part));
    if (colon == std::string::npos) break;
    start = colon + 1;
  }
  if (parts.size() < 2 || parts.size() > 3) return std::nullopt;
  long seconds = 0;
  for (long p : parts) seconds = seconds * 60 + p;
  return days * 86400 + seconds;
}

}  // namespace aorta::slurm
