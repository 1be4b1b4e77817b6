#include "metrics/trace_set.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <system_error>
#include <thread>

#include <fmt/format.h>

#include "redact/redact.h"
#include "common/progress_pace.h"
#include "common/run_both.h"
#include "common/utf8.h"
#include "trace/cpu_timeline.h"
#include "trace/trace_files.h"
#include "trace/trace_reader.h"

namespace aorta::metrics {
namespace fs = std::filesystem;

const char* status_name(ParseStatus status) {
  switch (status) {
    case ParseStatus::kSuccess: return "success";
    case ParseStatus::kPartial: return "partial";
    case ParseStatus::kFailed: return "failed";
  }
  return "failed";
}

namespace {

// A trace without a usable GPU timeline, read again with the basic scan, which also
// keeps the CPU events of a trace without GPU events (small: gloo on CPU) for the
// CPU timeline; else the basic scan's own sums.
Result<RankMetrics> without_gpu_timeline(const fs::path& file, const trace::TraceLimits& limits, bool had_gpu_events,
                                         std::vector<std::string>& warnings) {
  const std::string name = file.string();
  auto full = trace::read_trace(file, trace::BasicScanMode::kInclude, limits);
  if (!full) return full.error();
  for (const std::string& line : dropped_step_warnings(*full)) warnings.push_back(name + ": " + line);
  RankMetrics m;
  if (auto cpu = trace::cpu_timeline(*full)) {
    m = from_cpu_timeline(cpu->breakdown);
    m.steps = cpu_step_metrics(*full, *cpu);
    return m;
  }
  const char* why = !had_gpu_events
                        ? "it has no GPU events and no CPU operators or collectives"
                        : "none of its GPU events is linked to a launch (try --include-unlinked-kernels)";
  warnings.push_back(fmt::format("{}: no GPU or CPU timeline because {}; using the basic raw-trace scan", name, why));
  m = from_basic_scan(full->basic);
  m.steps = step_metrics(*full, {});  // step times only: no timeline to split
  if (m.total_time_us <= 0) return Error{ErrorCode::kInvalidInput, "trace has no timed events", name};
  return m;
}

// Figures past the largest double are refused: they would print as inf or null.
Status check_finite(const RankMetrics& m, const std::string& name) {
  for (double v : {m.total_time_us, m.compute_time_us, m.comm_time_us, m.total_comm_time_us, m.compute_ratio,
                   m.comm_ratio, m.overlap_ratio, m.busy_time_us.value_or(0), m.idle_time_us.value_or(0),
                   m.exposed_comm_time_us.value_or(0), m.total_memcpy_time_us.value_or(0),
                   m.exposed_memcpy_time_us.value_or(0), m.exposed_comm_ratio.value_or(0)})
    if (!std::isfinite(v))
      return Error{ErrorCode::kInvalidInput,
                   "the event times overflow: ts and dur sum past the largest number a double holds, so this "
                   "trace's metrics are not finite",
                   name};
  if (m.diagnosis)
    for (const auto& c : m.diagnosis->classes)
      if (!std::isfinite(c.time_us))
        return Error{ErrorCode::kInvalidInput, fmt::format("the {} kernels' summed time is not finite", c.name), name};
  for (const auto& st : m.steps)
    for (double v : {st.time_ms, st.compute_ms.value_or(0), st.comm_ms.value_or(0), st.exposed_comm_ms.value_or(0),
                     st.overlap_ms.value_or(0)})
      if (!std::isfinite(v))
        return Error{ErrorCode::kInvalidInput,
                     fmt::format("ProfilerStep#{}'s times overflow: they are not finite", st.step), name};
  return ok_status();
}

// The file's own distributedInfo.rank, else a rank<N> in its path, else unknown.
void set_rank(RankMetrics& m, const std::optional<int>& file_rank, const fs::path& file,
              std::vector<std::string>& warnings) {
  if (file_rank) {
    m.rank = file_rank;
    m.rank_source = "distributedInfo";
  } else if (auto from_path = trace::rank_from_path(file)) {
    m.rank = from_path;
    m.rank_source = "path";
  } else {
    m.rank_source = "unknown";
    warnings.push_back(file.string() + ": rank unknown (no distributedInfo.rank and no rank<N> in the path)");
  }
}

}  // namespace

Result<RankMetrics> analyze_trace_file(const fs::path& file, const AnalyzeOptions& options,
                                       std::vector<std::string>& warnings, uint64_t* bytes_read) {
  // The basic scan is only a fallback: read without it first, and again with it only
  // when the trace turns out to have no usable GPU timeline (CPU-only traces, small).
  const trace::TraceLimits limits = options.limits ? *options.limits : trace::TraceLimits{};
  auto data = trace::read_trace(file, trace::BasicScanMode::kSkip, limits, trace::TraceSplit{options.file_threads});
  if (!data) return data.error();
  if (bytes_read) *bytes_read = data->bytes;
  const std::string name = file.string();
  if (data->events == 0) return Error{ErrorCode::kInvalidInput, "trace holds no events", name};
  if (data->negative_durations > 0)
    warnings.push_back(fmt::format("{}: skipped {} events with a negative or non-finite dur", name,
                                   data->negative_durations));
  std::vector<bool> selected = trace::select_gpu_events(*data, options.selection);
  // The whole timeline and the per-step ones are independent: on two threads when
  // the file was read on two.
  trace::Breakdown breakdown;
  std::vector<StepMetrics> steps;
  const std::vector<uint32_t> indices = trace::selected_indices(selected);
  std::optional<trace::LaunchTimes> launches(*data);  // freed before a fallback read
  run_both([&] { breakdown = trace::breakdown_of(*data, indices); },
           [&] { steps = step_metrics(*data, selected, *launches); }, options.file_threads);
  RankMetrics m;
  const std::optional<int> file_rank = data->rank;
  const std::optional<double> peak_allocated = data->peak_allocated_bytes;
  const std::optional<int> gpu = data->gpu_devices_mixed ? std::nullopt : data->gpu_device;
  if (breakdown.selected_events > 0 && breakdown.total_time > 0) {
    m = from_timeline(breakdown);
    m.steps = std::move(steps);
    m.diagnosis = diagnose(*data, indices, breakdown.total_time, *launches);
    for (const std::string& line : dropped_step_warnings(*data)) warnings.push_back(name + ": " + line);
  } else {
    // The first read's records are freed first: the budget is for one read at a time.
    const bool had_gpu_events = !data->gpu_events.empty();
    *data = trace::TraceData{};
    launches.reset();
    std::vector<StepMetrics>().swap(steps);
    std::vector<bool>().swap(selected);
    auto fallback = without_gpu_timeline(file, limits, had_gpu_events, warnings);
    if (!fallback) return fallback.error();
    m = std::move(*fallback);
  }
  if (peak_allocated) m.peak_memory_gb = *peak_allocated / (1024.0 * 1024.0 * 1024.0);
  if (Status finite = check_finite(m, name); !finite) return finite.error();
  if (m.steps.empty())
    warnings.push_back(name + ": no ProfilerStep annotations (torch.profiler's step()); the per-step figures are null");
  m.source = name;
  set_rank(m, file_rank, file, warnings);
  m.node = trace::host_from_file_name(file);
  m.gpu = gpu;
  return m;
}

namespace {

// One file on a worker thread, the boundary where an exception would end the whole
// process: running out of memory (a budget set above what the machine has) is this
// file's error, and the other ranks are kept.
Result<RankMetrics> analyze_guarded(const fs::path& file, const AnalyzeOptions& options,
                                    std::vector<std::string>& warnings, uint64_t* bytes) {
  try {
    return analyze_trace_file(file, options, warnings, bytes);
  } catch (const std::bad_alloc&) {
    return Error{ErrorCode::kIo,
                 "out of memory while reading this trace (lower " + std::string(trace::kMemoryLimitVariable) +
                     " or --jobs)",
                 file.string()};
  } catch (const std::exception& e) {
    return Error{ErrorCode::kIo, std::string("reading this trace failed: ") + e.what(), file.string()};
  }
}

// One file's outcome, filled in by whichever worker took it.
struct Slot {
  std::optional<Result<RankMetrics>> result;
  std::vector<std::string> warnings;
  uint64_t bytes = 0;
};

// How many files are read at once, and how many threads go into each one
// (options.file_threads).
int worker_count(AnalyzeOptions& options, size_t files) {
  int jobs = options.jobs > 0 ? options.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  // More cores than files: the rest go into each file (a large plain one is split).
  options.file_threads = static_cast<unsigned>(std::max<size_t>(1, static_cast<size_t>(jobs) / files));
  jobs = std::clamp(jobs, 1, static_cast<int>(files));
  // The budget is per file and the workers read files at once: by default no more of
  // them than the machine's memory holds at a full budget each, so a folder of
  // hostile files meets the per-file error, not the kernel's OOM killer.
  if (options.jobs <= 0) {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
    if (pages > 0 && page > 0) {
      const uint64_t memory = static_cast<uint64_t>(pages) * static_cast<uint64_t>(page);
      const uint64_t fit = std::max<uint64_t>(1, memory / std::max<uint64_t>(1, options.limits->total_bytes));
      jobs = static_cast<int>(std::min<uint64_t>(static_cast<uint64_t>(jobs), fit));
    }
  }
  return jobs;
}

// Every file on `jobs` workers, each taking the next file as it finishes one, with
// a progress line per file (a quarter's, past a few) when options.progress is set.
std::vector<Slot> analyze_all(const std::vector<fs::path>& files, const AnalyzeOptions& options, int jobs) {
  std::vector<Slot> slots(files.size());
  std::atomic<size_t> next{0};
  std::mutex progress_lock;
  size_t done = 0;
  const auto begin = std::chrono::steady_clock::now();
  auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  auto worker = [&] {
    for (size_t i = next++; i < files.size(); i = next++) {
      const auto start = std::chrono::steady_clock::now();
      slots[i].result = analyze_guarded(files[i], options, slots[i].warnings, &slots[i].bytes);
      if (!options.progress) continue;
      const double took = seconds_since(start), mb = static_cast<double>(slots[i].bytes) / 1e6;
      std::lock_guard<std::mutex> hold(progress_lock);
      if (!progress_line_due(++done, files.size())) continue;
      try {
        options.progress(fmt::format("[parse] {}/{} traces: {} {:.1f} MB in {:.1f} s ({:.1f} MB/s){}; elapsed {:.1f} s",
                                     done, files.size(), valid_utf8(redact::redact_text(files[i].filename().string())), mb, took,
                                     took > 0 ? mb / took : 0.0, slots[i].result->ok() ? "" : ", failed",
                                     seconds_since(begin)));
      } catch (...) {
        // A progress line that cannot be printed costs only itself.
      }
    }
  };
  std::vector<std::thread> threads;
  for (int t = 1; t < jobs; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // no thread to be had (memory or process limits): fewer workers, same result
    }
  }
  worker();
  for (auto& t : threads) t.join();
  return slots;
}

// A parsed rank joins the set unless its rank number was read before: kept once.
void keep_rank(TraceSet& set, std::map<int, std::string>& seen_ranks, RankMetrics m) {
  if (m.rank) {
    auto [it, inserted] = seen_ranks.emplace(*m.rank, m.source);
    if (!inserted) {
      set.errors.push_back(fmt::format("{}: duplicate rank {} (already read from {}); this file is ignored",
                                       m.source, *m.rank, it->second));
      return;
    }
  }
  set.ranks.push_back(std::move(m));
  ++set.files_parsed;
}

// The set's verdict once every file is in.
void settle(TraceSet& set) {
  if (set.ranks.empty()) {
    set.status = ParseStatus::kFailed;
    set.errors.push_back("No traces could be parsed");
  } else {
    set.status = set.errors.empty() ? ParseStatus::kSuccess : ParseStatus::kPartial;
  }
}

// The files' ranks, warnings and errors, in file order; a rank seen twice is kept once.
void gather(TraceSet& set, std::vector<Slot>& slots) {
  std::map<int, std::string> seen_ranks;
  for (auto& slot : slots) {
    set.warnings.insert(set.warnings.end(), slot.warnings.begin(), slot.warnings.end());
    set.bytes += slot.bytes;
    if (!slot.result->ok()) {
      set.errors.push_back(slot.result->error().describe());
      continue;
    }
    keep_rank(set, seen_ranks, std::move(slot.result->value()));
  }
}

// options.limits from the environment when unset; false (with the error in set) when
// the environment's are wrong.
bool resolve_limits(AnalyzeOptions& options, TraceSet& set) {
  if (options.limits) return true;
  auto limits = trace::trace_limits_from_environment();
  if (!limits) {
    set.errors.push_back(limits.error().describe());
    return false;
  }
  options.limits = *limits;
  return true;
}

// Every text of the set made valid UTF-8 (file names and trace bytes need not be).
void clean_texts(TraceSet& set) {
  for (auto& w : set.warnings) w = valid_utf8(w);
  for (auto& e : set.errors) e = valid_utf8(e);
  for (auto& r : set.ranks) r.source = valid_utf8(r.source);
}

TraceSet analyze_found(const fs::path& dir, AnalyzeOptions options) {
  TraceSet set;
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    set.errors.push_back("Trace directory does not exist: " + dir.string());
    return set;
  }
  if (!resolve_limits(options, set)) return set;
  trace::FoundTraces found = trace::find_traces(dir);
  for (const auto& folder : found.unreadable)
    set.errors.push_back("cannot read folder " + folder + "; traces in it are not analyzed");
  for (const auto& link : found.links)
    set.errors.push_back(link.string() + ": a symbolic link, not followed; traces through it are not analyzed");
  for (const auto& special : found.not_regular) set.errors.push_back(special + ", not opened; not analyzed");
  std::vector<fs::path>& files = found.files;
  set.files_found = files.size();
  if (files.empty()) {
    set.errors.push_back("No trace files found in " + dir.string());
    return set;
  }
  const int jobs = worker_count(options, files.size());
  std::vector<Slot> slots = analyze_all(files, options, jobs);
  gather(set, slots);
  settle(set);
  return set;
}

}  // namespace

TraceSet analyze_traces(const fs::path& dir, const AnalyzeOptions& options) {
  TraceSet set = analyze_found(dir, options);
  clean_texts(set);
  return set;
}

TraceSet analyze_files(const std::vector<fs::path>& files, AnalyzeOptions options) {
  TraceSet set;
  set.files_found = files.size();
  if (files.empty() || !resolve_limits(options, set)) return set;
  std::vector<Slot> slots = analyze_all(files, options, worker_count(options, files.size()));
  gather(set, slots);
  clean_texts(set);
  return set;
}

TraceSet merge_trace_sets(std::vector<TraceSet> parts) {
  TraceSet set;
  std::map<int, std::string> seen_ranks;
  for (auto& part : parts) {
    set.warnings.insert(set.warnings.end(), part.warnings.begin(), part.warnings.end());
    set.errors.insert(set.errors.end(), part.errors.begin(), part.errors.end());
    set.files_found += part.files_found;
    set.bytes += part.bytes;
    for (auto& rank : part.ranks) keep_rank(set, seen_ranks, std::move(rank));
  }
  settle(set);
  return set;
}

}  // namespace aorta::metrics
