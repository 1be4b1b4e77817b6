// One writer per output format, in Google Benchmark's reporter mould: a writer
// formats a finished RunRecord onto a stream and never opens files itself.
#pragma once

#include <memory>
#include <ostream>
#include <string>

#include "report/run_record.h"

namespace aorta::report {

class ReportWriter {
 public:
  virtual ~ReportWriter() = default;
  virtual void write(const RunRecord& run, std::ostream& out) const = 0;
  // The file name for a suite, e.g. aorta_single.xml.
  virtual std::string file_name(const std::string& suite) const = 0;
};

// "junit", "log" or "html"; nullptr for an unknown format name.
std::unique_ptr<ReportWriter> create_writer(const std::string& format);

// XML text and attribute escaping, the only place it is done; also drops the
// control characters XML 1.0 cannot hold.
std::string escape_xml(const std::string& text);

}  // namespace aorta::report
