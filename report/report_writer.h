// One writer per text format, in Google Benchmark's reporter mould: a writer
// formats a finished RunRecord onto a stream and never opens files itself
// (report/outputs.h turns them into the run's files).
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

// XML/HTML text and attribute escaping for the HTML writers (the JUnit XML is a
// pugixml document); also drops the control characters XML 1.0 cannot hold.
std::string escape_xml(const std::string& text);

// A relative link (a path) as an href's escaped value that a browser can only read as a
// path: what would end or change a URL's path ('%', '#', '?', '\\', spaces, controls)
// is percent-encoded, and a first segment holding ':' ("javascript:alert(1)", a folder
// name from the config) gets "./" before it, so it is never a scheme (issue 42, 9).
std::string link_href(const std::string& link);

}  // namespace aorta::report
