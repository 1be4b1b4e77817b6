#include "stages/stage_guard.h"

#include <exception>

#include "common/utf8.h"
#include "redact/redact.h"

namespace aorta::stages {

namespace {

// Node output and config values reach these texts: secrets cut, made valid UTF-8
// with control characters escaped (a node's text must not drive the terminal), and
// bounded, here, before the console, the records and every report see them.
std::string clean(const std::string& text) {
  // Redacted a little past the cut, so that a token across it is still whole.
  const std::string_view head = utf8_prefix(text, kShownTextBytes + 4096);
  const std::string redacted = redact::redact_text(head);
  if (head.size() == text.size()) return printable_text(redacted, kShownTextBytes);
  return printable_text(utf8_prefix(redacted, kShownTextBytes), kShownTextBytes) + " [cut: " +
         std::to_string(text.size()) + " bytes in all]";
}

}  // namespace

void clean_texts(StageResult& out) {
  for (auto& f : out.failures) f = clean(f);
  for (auto& note : out.log) note = clean(note);
  if (out.log.size() > kShownNotes) {
    const size_t left_out = out.log.size() - kShownNotes;
    out.log.resize(kShownNotes);
    out.log.push_back("[" + std::to_string(left_out) + " more lines left out]");
  }
  out.skip_reason = clean(out.skip_reason);
  auto clean_subtest = [](job::SubTest& t) {
    t.value = printable(utf8_prefix(t.value, kShownTextBytes));
    t.message = clean(t.message);
  };
  for (auto& t : out.subtests) clean_subtest(t);
  if (out.subtest) clean_subtest(*out.subtest);
}

StageResult run_guarded(const std::string& stage_name, const std::function<StageResult()>& body) {
  StageResult out;
  try {
    out = body();
  } catch (const std::exception& e) {
    out = {};
    out.failures.push_back("internal error in " + stage_name + ": " + e.what());
  } catch (...) {
    out = {};
    out.failures.push_back("internal error in " + stage_name + ": an exception that is not a std::exception");
  }
  clean_texts(out);
  return out;
}

}  // namespace aorta::stages
