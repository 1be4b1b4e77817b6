// Any bytes as a compare input (aorta_benchmark_report.json, issue 29): load_run_figures
// gives figures or an error, never a crash; an error names the file and stays short;
// only compared metrics are kept. Read again with tiny limits, so that inputs of a
// few KiB reach every limit's check. Seeds: seeds/compare (make_offline_seeds.py).
#include <algorithm>
#include <string_view>

#include "common/utf8.h"
#include "metrics/compare.h"
#include "report/run_figures.h"
#include "tests/fuzz/fuzz_file.h"

namespace {

void check(const aorta::Result<aorta::metrics::RunFigures>& got, const std::string& source) {
  if (!got) {
    const std::string& message = got.error().message;
    if (message.rfind(source + ": ", 0) != 0 || message.size() > source.size() + 200) __builtin_trap();
    return;
  }
  const auto compared = aorta::metrics::compared_metrics();
  for (const auto& [key, value] : got->performance)
    if (std::find(compared.begin(), compared.end(), key) == compared.end()) __builtin_trap();
  const auto c = aorta::metrics::compare_runs(*got, *got, {{"", 5}});
  if (c.regressed) __builtin_trap();  // a run is never worse than itself
  (void)aorta::result_json::json_text(aorta::report::comparison_json(c, *got, *got));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const auto file = aorta::fuzz::scratch_file(data, size, "aorta_benchmark_report.json");
  check(aorta::report::load_run_figures(file), file.string());
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  check(aorta::report::figures_from_json(text, "tiny.json", {.max_depth = 6, .max_values = 64, .max_step_times = 4}),
        "tiny.json");
  return 0;
}
