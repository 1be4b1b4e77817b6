#include "report/aorta_listener.h"

#include <unistd.h>

#include <algorithm>
#include <ctime>
#include <iostream>
#include <sstream>

#include "common/atomic_file.h"
#include "common/utf8.h"
#include "report/html_writer.h"
#include "report/redact.h"
#include "report/report_writer.h"
#include "report/zip_writer.h"

namespace aorta::report {
namespace fs = std::filesystem;

AortaListener::AortaListener(fs::path report_dir, std::string suite, std::string run_id, StageDetails details,
                             std::vector<fs::path> extra_junit_paths,
                             std::vector<std::pair<std::string, fs::path>> input_files, ExtraPages extra_pages)
    : report_dir_(std::move(report_dir)),
      details_(std::move(details)),
      extra_junit_paths_(std::move(extra_junit_paths)),
      input_files_(std::move(input_files)),
      extra_pages_(std::move(extra_pages)) {
  record_.suite = std::move(suite);
  record_.run_id = std::move(run_id);
}

void AortaListener::OnTestProgramStart(const ::testing::UnitTest&) {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%S", std::localtime(&now));
  record_.timestamp = text;
  char host[256] = {0};
  gethostname(host, sizeof host - 1);
  record_.hostname = host;
}

void AortaListener::OnTestEnd(const ::testing::TestInfo& info) {
  try {
    const ::testing::TestResult& result = *info.result();
    StageResult stage;
    if (details_)
      if (auto known = details_(info.name())) stage = *known;
    stage.name = info.name();
    if (stage.stage.empty()) stage.stage = stage.name;
    stage.seconds = result.elapsed_time() / 1000.0;
    // gtest's verdict is the one every report shows, so they all agree with its console.
    stage.outcome = result.Failed() ? job::Outcome::kFailed : result.Skipped() ? job::Outcome::kSkipped : job::Outcome::kPassed;
    // Failures gtest saw but the stage did not report itself (a broken fixture, say).
    if (stage.outcome == job::Outcome::kFailed && stage.failures.empty())
      for (int i = 0; i < result.total_part_count(); ++i)
        if (result.GetTestPartResult(i).failed()) stage.failures.push_back(result.GetTestPartResult(i).message());
    if (stage.outcome == job::Outcome::kSkipped && stage.skip_reason.empty())
      for (int i = 0; i < result.total_part_count(); ++i)
        if (result.GetTestPartResult(i).skipped()) stage.skip_reason = result.GetTestPartResult(i).message();
    redact_stage(stage);  // gtest's own failure texts too, not only what the stage reported
    record_.stages.push_back(valid_text(std::move(stage)));
  } catch (const std::exception& e) {
    // gtest does not catch what a listener throws: it would end the process.
    fail_write(std::string("could not record ") + info.name() + " for the reports: " + e.what());
  }
}

void AortaListener::OnTestProgramEnd(const ::testing::UnitTest& unit_test) {
  record_.seconds = unit_test.elapsed_time() / 1000.0;
  try {
    write_reports();
  } catch (const std::exception& e) {
    fail_write(std::string("could not write the reports: ") + e.what());
  }
}

void AortaListener::write_reports() {
  std::error_code ec;
  fs::create_directories(report_dir_, ec);
  write_file("junit", report_dir_ / (record_.suite + ".xml"));
  write_file("log", report_dir_ / (record_.suite + ".log"));
  for (const auto& extra : extra_junit_paths_) write_file("junit", extra);
  write_html_bundle();
}

void AortaListener::fail_write(const std::string& what) {
  std::cerr << "aorta_suite: " << what << "\n";
  write_failed_ = true;
}

bool AortaListener::write_text(const fs::path& path, const std::string& content, bool announce) {
  if (Status s = write_file_atomically(path, content); !s) {
    // "<path>: could not write: No space left on device"
    fail_write(s.error().describe());
    return false;
  }
  if (announce) std::cout << "aorta_suite: wrote " << path.string() << "\n";
  return true;
}

void AortaListener::write_html_bundle() {
  const std::string folder = record_.suite + "_html";
  std::error_code ec;
  fs::create_directories(report_dir_ / folder, ec);
  if (extra_pages_) {
    try {
      for (const auto& [name, content] : extra_pages_(record_))
        if (write_text(report_dir_ / folder / name, content) && name == "aorta_run_deck.html")
          record_.deck_link = folder + "/aorta_run_deck.html";
    } catch (const std::exception& e) {
      fail_write("could not write the Run Deck: " + std::string(e.what()));
    }
  }
  write_file("html", report_dir_ / (record_.suite + ".html"));
  for (const auto& stage : record_.stages) {
    std::ostringstream page;
    write_stage_log_page(record_, stage, page);
    write_text(report_dir_ / stage_log_path(record_, stage), page.str());
  }
  for (const auto& [prefix, file] : input_files_) {
    // Redacted: a cluster file's password or an env token must not travel with the report.
    auto text = redacted_json(file);
    if (!text) continue;  // not JSON: it cannot be redacted, so it is not copied
    write_text(report_dir_ / folder / (prefix + "_" + valid_utf8(file.filename().string())), *text);
  }
  // The bundle: the report at the root and every file of <suite>_html/ under its name.
  std::vector<std::pair<std::string, fs::path>> entries = {{record_.suite + ".html", report_dir_ / (record_.suite + ".html")}};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(report_dir_ / folder, ec))
    if (entry.is_regular_file()) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) entries.emplace_back(folder + "/" + f.filename().string(), f);
  std::string stamp = record_.timestamp;
  stamp.erase(std::remove(stamp.begin(), stamp.end(), ':'), stamp.end());
  fs::path zip = report_dir_ / (record_.suite + "_" + stamp + ".zip");
  if (Status s = write_zip(zip, entries); !s) {
    fail_write(s.error().describe());
    return;
  }
  std::cout << "aorta_suite: wrote " << zip.string() << "\n";
}

void AortaListener::write_file(const std::string& format, const fs::path& path) {
  auto writer = create_writer(format);
  std::error_code ec;
  if (path.has_parent_path()) fs::create_directories(path.parent_path(), ec);
  std::ostringstream out;
  writer->write(record_, out);
  write_text(path, out.str(), true);
}

}  // namespace aorta::report
