#include "common/redact_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "common/atomic_file.h"
#include "common/output_path.h"
#include "common/redact.h"

namespace aorta {

Status redact_file_in_place(const std::filesystem::path& file) {
  // O_NONBLOCK: a FIFO put at the name must not hold the run; it is refused below.
  const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return Error{ErrorCode::kIo, std::string("could not open it to redact: ") + std::strerror(errno), file.string()};
  auto refuse = [&](ErrorCode code, const std::string& why) -> Status {
    ::close(fd);
    return Error{code, why, file.string()};
  };
  struct stat st {};
  if (::fstat(fd, &st) != 0) return refuse(ErrorCode::kIo, std::string("could not stat it to redact: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode))
    return refuse(ErrorCode::kInvalidInput, "not redacted: it is " + file_kind(st.st_mode) + ", not a regular file");
  StreamRedactor redactor;
  std::string block(size_t{64} << 10, '\0');
  bool at_end = false;
  Status written = write_file_atomically(file, [&]() -> Result<std::string> {
    while (!at_end) {
      const ssize_t n = ::read(fd, block.data(), block.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Error{ErrorCode::kIo, std::string("could not read it to redact: ") + std::strerror(errno), file.string()};
      if (n == 0) {
        at_end = true;
        return redactor.finish();
      }
      std::string out = redactor.feed(std::string_view(block.data(), static_cast<size_t>(n)));
      if (!out.empty()) return out;
    }
    return std::string();
  });
  ::close(fd);
  return written;
}

}  // namespace aorta
