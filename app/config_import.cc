#include "app/config_import.h"

#include <filesystem>
#include <iostream>

#include "app/exit_codes.h"
#include "common/atomic_file.h"
#include "common/utf8.h"
#include "config/cluster.h"
#include "config/cvs_yaml_import.h"
#include "config/shipped.h"
#include "config/variant_loader.h"

namespace aorta::app {
namespace fs = std::filesystem;
namespace {

// How the run differs from test_aorta's whatever the file says.
constexpr const char* kAlways[] = {
    "one node in the cluster file runs aorta_single (the experiment script in the container, as test_aorta did); "
    "more nodes run aorta_distributed (torchrun on every node), where test_aorta ran the script on the head node only",
    "the reports, aorta_benchmark_report.json among them, go to output_dir (aorta_results/<run-id>/), not "
    "/tmp/benchmark_output"};

int refuse_existing(const fs::path& path) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return kExitOk;
  return usage_error("refusing to overwrite " + printable(path.string()) + "; remove it first or give --output",
                     cli::Command::kConfigImport);
}

}  // namespace

int import_config(const cli::Options& o) {
  const fs::path yaml = o.config_name;
  const fs::path output = o.output.empty() ? fs::path(yaml.stem().string() + ".json") : fs::path(o.output);
  const fs::path thresholds = output.parent_path() / (output.stem().string() + "_threshold.json");
  for (const auto& p : {output, thresholds})
    if (int rc = refuse_existing(p)) return rc;

  auto imported = config::import_cvs_yaml_file(yaml, thresholds.filename().string());
  if (!imported.variant) {
    std::cerr << "aorta_suite: " << printable(yaml.string()) << " cannot be imported (nothing was written):\n";
    for (const auto& e : imported.errors) std::cerr << "  " << printable(e.describe()) << "\n";
    return kExitUsage;
  }
  for (const auto& [path, doc] : {std::pair{thresholds, imported.thresholds}, std::pair{output, *imported.variant}})
    if (Status s = write_file_atomically(path, doc.dump(2) + "\n"); !s)
      return usage_error(s.error().message, cli::Command::kConfigImport);
  std::cout << "imported " << printable(yaml.string()) << " to " << printable(output.string()) << " and "
            << printable(thresholds.string()) << "\n";
  for (const char* note : kAlways) std::cout << "  note: " << note << "\n";
  for (const auto& note : imported.notes) std::cout << "  note: " << printable(note) << "\n";

  // The run's loader, with this user for {user-id} (a run takes the cluster file's username).
  auto data_dir = config::shipped_data_dir();
  auto loaded = config::load_variant(output, {config::current_user_id(),
                                              data_dir ? (data_dir.value() / "workload").string() : ""});
  if (!loaded.errors.empty()) {
    std::cerr << "aorta_suite: " << printable(output.string()) << " was written but does not load yet; fix:\n";
    for (const auto& e : loaded.errors) std::cerr << "  " << printable(e.describe()) << "\n";
    return kExitUsage;
  }
  std::cout << "it loads; run it with: aorta_suite --cluster_file CLUSTER.json --config_file "
            << printable(output.string()) << "\n";
  return kExitOk;
}

}  // namespace aorta::app
