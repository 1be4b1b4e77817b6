#include "trace/split_read.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <memory>
#include <system_error>
#include <thread>

#include <simdjson.h>

#include "common/run_both.h"
#include "trace/byte_source.h"
#include "trace/part_read.h"

namespace aorta::trace::reader {
namespace {

using Parts = std::vector<std::unique_ptr<PartState>>;

// Each part's interned ids and threads in the merged numbering, in file order, and
// the sizes of the merged arrays.
struct Renumbering {
  std::vector<std::vector<int64_t>> ids;
  std::vector<std::vector<uint32_t>> thread;
  std::vector<int32_t> gpu_offset;  // each part's first GPU event in the merged gpu_events
  size_t gpu = 0, launches = 0, keyed = 0, starts = 0, ends = 0;
  // Part i's id `v` in the merged numbering (a string's part-local number renumbered).
  int64_t id(size_t i, int64_t v, bool interned) const { return interned ? ids[i][static_cast<size_t>(-(v + 1))] : v; }
};

// Interned ids get the numbers a whole read gives them (first seen, first numbered),
// in `out`'s interners.
Renumbering renumber(const Parts& parts, PartState& out) {
  Renumbering r;
  r.ids.resize(parts.size());
  r.thread.resize(parts.size());
  for (size_t i = 0; i < parts.size(); ++i) {
    const PartState& p = *parts[i];
    for (const auto& s : p.interner.strings()) r.ids[i].push_back(out.interner.intern(s));
    for (const auto& k : p.threads.keys())
      r.thread[i].push_back(out.threads.intern(r.id(i, k.pid, k.tags & kPidInterned), r.id(i, k.tid, k.tags & kTidInterned)));
    r.gpu_offset.push_back(static_cast<int32_t>(r.gpu));
    r.gpu += p.data.gpu_events.size();
    r.launches += p.data.runtime_launches.size();
    r.keyed += p.data.keyed_events.size() + p.undecided.size();
    r.starts += p.data.flow_starts.size() + p.interned_flow_starts.size();
    r.ends += p.data.flow_ends.size();
  }
  return r;
}

// The later parts' steps, peaks and counts, added to the first part's.
void add_totals(TraceData& data, const Parts& parts) {
  for (size_t i = 1; i < parts.size(); ++i) {
    const TraceData& p = parts[i]->data;
    data.steps.insert(data.steps.end(), p.steps.begin(), p.steps.end());
    if (p.peak_allocated_bytes)
      data.peak_allocated_bytes = std::max(data.peak_allocated_bytes.value_or(0), *p.peak_allocated_bytes);
    if (p.gpu_device) note_device(data, *p.gpu_device);
    data.gpu_devices_mixed = data.gpu_devices_mixed || p.gpu_devices_mixed;
    data.negative_durations += p.negative_durations;
    data.events += p.events;
    data.bytes += p.bytes;
  }
}

// A later part's collective keys in the first part's numbering (which the merged
// data kept), for its GPU events from `first` on.
void renumber_collectives(TraceData& data, size_t first, const TraceData& part, CollectiveInterner& merged) {
  std::vector<uint32_t> id;
  for (const CollectiveKey& key : part.collectives) id.push_back(merged.intern(key, data.collectives));
  data.collectives_over_limit += part.collectives_over_limit;
  for (size_t e = first; e < data.gpu_events.size(); ++e) {
    uint32_t& c = data.gpu_events[e].collective;
    if (c == kNoCollective || c == kCollectivePastLimit) continue;  // the latter counted in the part's total
    c = id[c];
    if (c == kCollectivePastLimit) ++data.collectives_over_limit;
  }
}

void append_gpu_and_launches(TraceData& data, Parts& parts, const Renumbering& r) {
  data.gpu_events.reserve(r.gpu);
  data.runtime_launches.reserve(r.launches);
  for (size_t i = 1; i < parts.size(); ++i) {
    TraceData& p = parts[i]->data;
    const size_t first = data.gpu_events.size();
    data.gpu_events.insert(data.gpu_events.end(), p.gpu_events.begin(), p.gpu_events.end());
    LargeVector<GpuEvent>().swap(p.gpu_events);
    renumber_collectives(data, first, p, parts.front()->collectives);
    data.runtime_launches.insert(data.runtime_launches.end(), p.runtime_launches.begin(), p.runtime_launches.end());
    LargeVector<RuntimeLaunch>().swap(p.runtime_launches);
  }
}

void append_keyed_and_flows(TraceData& data, Parts& parts, const Renumbering& r, bool by_correlation) {
  const auto& thread = r.thread;
  const auto& gpu_offset = r.gpu_offset;
  // The first part's threads keep their numbers unless two of its (pid, tid)
  // pairs are one in the file (a string id and the same number written as one).
  bool renumber_first = false;
  for (size_t t = 0; t < thread[0].size(); ++t) renumber_first |= thread[0][t] != t;
  if (renumber_first) {
    for (auto& k : data.keyed_events) k.thread = thread[0][k.thread];
    for (auto& f : data.flow_ends) f.thread = thread[0][f.thread];
  }
  for (auto& f : data.flow_ends) f.interned = false;  // its strings were numbered first: the same numbers
  data.keyed_events.reserve(r.keyed);
  data.flow_starts.reserve(r.starts);
  data.flow_ends.reserve(r.ends);
  for (size_t i = 0; i < parts.size(); ++i) {
    PartState& p = *parts[i];
    // Before a part's first launch, both keys (undecided); after it, the key.
    for (const auto& u : p.undecided) {
      const int64_t key = by_correlation ? u.correlation : u.external_id;
      if (key != kNoKey) data.keyed_events.push_back({thread[i][u.thread], u.gpu_index < 0 ? -1 : u.gpu_index + gpu_offset[i], key});
    }
    LargeVector<UndecidedKeyed>().swap(p.undecided);
    for (int64_t v : p.interned_flow_starts) data.flow_starts.push_back(r.id(i, v, true));
    if (i == 0) continue;
    for (const auto& k : p.data.keyed_events)
      data.keyed_events.push_back({thread[i][k.thread], k.gpu_index < 0 ? -1 : k.gpu_index + gpu_offset[i], k.key});
    LargeVector<KeyedEvent>().swap(p.data.keyed_events);
    data.flow_starts.insert(data.flow_starts.end(), p.data.flow_starts.begin(), p.data.flow_starts.end());
    for (const auto& f : p.data.flow_ends) data.flow_ends.push_back({r.id(i, f.id, f.interned), thread[i][f.thread], false});
  }
}

// The parts' records in file order, as one read of the whole file would have made
// them: `decided` is the link key the file's first launch decided, which every part
// that saw a launch has used too (read_parts); interned ids get the numbers a whole
// read gives them (first seen, first numbered); (pid, tid) pairs are numbered again
// (finish numbers them by value). The first part's
// records stay where they are, its arrays reserved for the whole file (numbered as
// the merge numbers them, as it was read first); the later parts' are appended in two
// halves of about equal size (GPU events and launches; keyed events and flows), the
// second on a thread of its own when `threads` allows. Fresh memory is what costs
// here: every first touch of a page is a fault.
PartState merge_parts(Parts& parts, std::optional<bool> decided, unsigned threads) {
  PartState out(false);
  const Renumbering numbering = renumber(parts, out);
  for (auto& p : parts)
    if (p->has_distributed_info) {
      out.distributed_info = std::move(p->distributed_info);
      out.has_distributed_info = true;
    }
  // The first part's records are the destination; its own fields are the start.
  TraceData& data = out.data;
  data = std::move(parts.front()->data);
  data.link_by_correlation = decided;
  add_totals(data, parts);
  run_both([&] { append_gpu_and_launches(data, parts, numbering); },
           [&] { append_keyed_and_flows(data, parts, numbering, decided.value_or(false)); }, threads);
  data.parts = static_cast<unsigned>(parts.size());
  return out;
}

}  // namespace

std::vector<ScanPart> plan_parts(const std::filesystem::path& file, const TraceSplit& split) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(file, ec);
  if (ec || split.threads < 2 || detect_encoding(file) != Compression::kNone) return {};
  const uint64_t parts = std::min<uint64_t>(split.threads, size / std::max<uint64_t>(1, split.min_part_bytes));
  if (parts < 2) return {};
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  std::vector<char> window(1u << 20);
  auto is_space = [](char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; };
  // The top-level value: a bare array (torch 1.13) or an object.
  ssize_t n = ::pread(fd, window.data(), window.size(), 0);
  ssize_t first = 0;
  while (first < n && is_space(window[first])) ++first;
  const bool legacy = first < n && window[first] == '[';
  std::vector<ScanPart> out;
  if (first < n && (window[first] == '[' || window[first] == '{')) {
    uint64_t begin = 0;
    for (uint64_t k = 1; k < parts; ++k) {
      const uint64_t target = std::max(size / parts * k, begin + 1);
      n = ::pread(fd, window.data(), window.size(), static_cast<off_t>(target));
      uint64_t found = 0;
      for (ssize_t i = 0; i < n && !found; ++i) {
        if (window[i] != '}') continue;
        ssize_t j = i + 1;
        while (j < n && is_space(window[j])) ++j;
        if (j >= n || window[j] != ',') continue;
        ++j;
        while (j < n && is_space(window[j])) ++j;
        if (j < n && window[j] == '{') found = target + static_cast<uint64_t>(j);
      }
      if (!found) continue;  // one part fewer
      out.push_back({begin, found, legacy});
      begin = found;
    }
    if (!out.empty()) out.push_back({begin, UINT64_MAX, legacy});
  }
  ::close(fd);
  return out;
}

namespace {

// What every part of one split read shares.
struct SplitJob {
  const std::filesystem::path& file;
  bool basic;
  const TraceLimits& limits;
  const std::vector<ScanPart>& plan;
  std::optional<uint64_t> file_bytes;  // unset when the size could not be had
  uint64_t share;                      // each part's of the budget

  std::unique_ptr<PartState> new_part(size_t i) const {
    auto part = std::make_unique<PartState>(true);
    if (!file_bytes) return part;
    const uint64_t end = plan[i].end != UINT64_MAX ? plan[i].end : *file_bytes;
    // The first part's arrays become the merged ones: room for the whole file's
    // records there, so the merge appends without moving them.
    if (end > plan[i].begin)
      reserve_for(part->data, i == 0 ? *file_bytes : end - plan[i].begin, i == 0, i == 0 ? limits.max_state_bytes : share);
    return part;
  }

  Status read(PartState& part, simdjson::ondemand::parser& parser, size_t i, const std::atomic<bool>* stop) const {
    return read_into(part, parser, file, basic, limits, share, &plan[i], stop);
  }
};

// Reads the parts on `threads` threads (this one among them), each taking the next
// part as it finishes one; a failed part stops the others. A part no thread got to
// (none could be had, or one stopped early) stays "not read".
std::vector<Status> read_all(const SplitJob& job, Parts& parts, unsigned threads) {
  const size_t count = job.plan.size();
  std::vector<Status> results(count, Status(Error{ErrorCode::kIo, "part not read", job.file.string()}));
  std::atomic<bool> stop{false};
  std::atomic<size_t> next{0};
  // Nothing may leave a thread (std::terminate): any failure is the part's, and a
  // failed part makes the caller read the file whole, which names the error.
  auto work = [&]() noexcept {
    std::optional<simdjson::ondemand::parser> parser;
    try {
      parser.emplace();
    } catch (...) {
      return;
    }
    for (size_t i; !stop && (i = next.fetch_add(1)) < count;) {
      try {
        results[i] = job.read(*parts[i], *parser, i, &stop);
      } catch (const std::bad_alloc&) {
        results[i] = Error{ErrorCode::kIo, "out of memory", job.file.string()};
      } catch (...) {
        results[i] = Error{ErrorCode::kIo, "reading a part failed", job.file.string()};
      }
      if (!results[i]) stop = true;
    }
  };
  // Every started thread is joined on every way out of this block; a thread that
  // cannot be had leaves its parts to the others.
  std::vector<std::thread> helpers;
  struct JoinAll {
    std::vector<std::thread>& threads;
    ~JoinAll() {
      for (auto& t : threads)
        if (t.joinable()) t.join();
    }
  } join_all{helpers};
  for (unsigned t = 1; t < threads && t < count; ++t) {
    try {
      helpers.emplace_back(work);
    } catch (const std::system_error&) {
      break;
    }
  }
  work();
  for (auto& t : helpers) t.join();
  return results;
}

// The file's first launch decides the link key. A part whose own first launch
// decided the other way (launches with and without a correlation in one file; not
// seen in real traces) is read again with the file's key. False when that fails.
bool agree_on_link_key(const SplitJob& job, Parts& parts, std::optional<bool>& decided) {
  for (const auto& p : parts)
    if (!decided) decided = p->data.link_by_correlation;
  for (size_t i = 0; i < parts.size(); ++i) {
    if (!parts[i]->data.link_by_correlation || *parts[i]->data.link_by_correlation == *decided) continue;
    // As in the threads: a failure here makes the file be read whole.
    try {
      parts[i] = job.new_part(i);
      parts[i]->data.link_by_correlation = decided;
      simdjson::ondemand::parser parser;
      if (!job.read(*parts[i], parser, i, nullptr)) return false;
    } catch (const std::exception&) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<PartState> read_parts(const std::filesystem::path& file, bool basic, const TraceLimits& limits,
                                    const std::vector<ScanPart>& plan, unsigned threads) {
  std::error_code ec;
  const uint64_t file_bytes = std::filesystem::file_size(file, ec);
  const SplitJob job{file, basic, limits, plan, ec ? std::nullopt : std::optional<uint64_t>(file_bytes),
                     limits.max_state_bytes / plan.size()};
  Parts parts;
  for (size_t i = 0; i < plan.size(); ++i) parts.push_back(job.new_part(i));
  for (const auto& r : read_all(job, parts, threads))
    if (!r) return std::nullopt;
  // distributedInfo before traceEvents (first part) and again after it (last part):
  // the whole read names the duplicate.
  if (parts.front()->has_distributed_info && parts.back()->has_distributed_info) return std::nullopt;
  std::optional<bool> decided;
  if (!agree_on_link_key(job, parts, decided)) return std::nullopt;
  return merge_parts(parts, decided, threads);
}

}  // namespace aorta::trace::reader
