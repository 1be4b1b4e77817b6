#include "app/live_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iostream>
#include <memory>

#include "common/output_path.h"
#include "redact/redact.h"

namespace aorta::app {

// <suite>.log while the benchmark runs: node 0's training output, line by line, as
// the original streams it (tail -F follows it). The final log replaces it whole when
// the run ends; node 0's whole log stays in <suite>_html/node_logs/. A file that
// cannot be opened loses only this live view: the final write reports the problem.
std::string live_log_header(const std::string& suite, const std::string& run_id) {
  return suite + " run " + run_id + ": the training output of node 0 while it runs; the whole report log replaces "
         "this when the run ends\n";
}

job::ProgressFn live_log(const std::filesystem::path& path, const std::string& header) {
  // The descriptor, opened at the first line as the output rules allow (never through
  // a link, never a device or FIFO): -1 before, -2 once it could not be.
  auto fd = std::shared_ptr<int>(new int(-1), [](int* f) {
    if (*f >= 0) ::close(*f);
    delete f;
  });
  auto put = [](int f, const std::string& text) {
    for (size_t done = 0; done < text.size();) {
      ssize_t n = ::write(f, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return;
      done += static_cast<size_t>(n);
    }
  };
  // One redactor for the whole log: a private key's or a YAML block's lines are known
  // as such only from the lines before them.
  auto redactor = std::make_shared<redact::StreamRedactor>();
  return [fd, path, header, put, redactor](const std::string& line) {
    if (*fd == -1) {
      auto opened = open_output_for_append(path);
      if (!opened) {
        std::cerr << "aorta_suite: no live log: " << opened.error().describe() << "\n";
        *fd = -2;
        return;
      }
      *fd = *opened;
      put(*fd, header);
    }
    if (*fd >= 0) put(*fd, redactor->feed(line + "\n"));  // the report's rule: no secret in any report file
  };
}

// A live log the final one did not replace (a full disk) is not the report and must
// not look like it: removed, saying so.
void remove_stale_live_log(const std::filesystem::path& path, const std::string& header) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  std::string start(header.size(), '\0');
  in.read(start.data(), static_cast<std::streamsize>(start.size()));
  start.resize(static_cast<size_t>(in.gcount()));
  if (!header.starts_with(start)) return;  // the final log (or an empty prefix of the header: also stale)
  in.close();
  std::error_code ec;
  if (std::filesystem::remove(path, ec))
    std::cerr << "aorta_suite: " << path.string() << ": removed the live training output, since the run's log could "
              << "not replace it\n";
}

}  // namespace aorta::app
