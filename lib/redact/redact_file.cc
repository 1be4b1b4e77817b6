#include "redact/redact_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>

#include "common/atomic_file.h"
#include "common/output_path.h"
#include "redact/redact.h"

namespace aorta::redact {

Status redact_file_in_place(const std::filesystem::path& file) {
  auto failed = [&](const char* what) {  // reads errno: call right after the failed call
    const std::string reason = std::strerror(errno);
    return Error{ErrorCode::kIo, std::string("could not ") + what + " it to redact: " + reason, file.string()};
  };
  // O_NONBLOCK: a FIFO put at the name must not hold the run; it is refused below.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return failed("open");
  struct stat st {};
  std::optional<Error> refused;
  if (::fstat(fd, &st) != 0)
    refused = failed("stat");
  else if (!S_ISREG(st.st_mode))
    refused = Error{ErrorCode::kInvalidInput, "not redacted: it is " + file_kind(st.st_mode) + ", not a regular file",
                    file.string()};
  if (refused) {
    ::close(fd);
    return *refused;
  }
  StreamRedactor redactor;
  std::string block(size_t{64} << 10, '\0');
  bool at_end = false;
  Status written = write_file_atomically(file, [&]() -> Result<std::string> {
    while (!at_end) {
      const ssize_t n = ::read(fd, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return failed("read");
      if (n == 0) {
        at_end = true;
        return redactor.finish();
      }
      std::string out = redactor.feed(std::string_view(block.data(), static_cast<size_t>(n)));
      if (!out.empty()) return out;
    }
    return std::string();  // the end
  });
  ::close(fd);
  return written;
}

}  // namespace aorta::redact
