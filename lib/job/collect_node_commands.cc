// The listing and copy commands of a collection. Both need python3 on the node (or in
// its container): it is there wherever torch trains, and it gives the copy openat()
// with O_NOFOLLOW on every component and fstat() on the opened descriptor, which no
// shell tool offers. It runs isolated (-I -S): nothing in the checkout or the
// environment can change what it imports.
#include "job/collect_node_commands.h"

#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

constexpr const char* kPython = "python3 -I -S -c ";

// Fails the command at once, saying why, where python3 is missing.
std::string needs_python() {
  return "command -v python3 >/dev/null 2>&1 || { echo 'python3 is not on the PATH here: the suite needs it to list "
         "and copy files off the node safely (every folder opened without following a link); nothing was copied' >&2; "
         "exit 127; }; ";
}

// Passes find's records through, but names only the first argv[1] stale ones
// (S\t<record>, passed on without the S) and ends with C\t<count> for the rest.
constexpr const char* kStaleFilter = R"PY(
import sys
keep, named, counted, rest = int(sys.argv[1]), 0, 0, b""
src, out = sys.stdin.buffer, sys.stdout.buffer
while True:
    chunk = src.read(1 << 16)
    records = (rest + chunk).split(b"\0")
    rest = records.pop() if chunk else b""
    for r in records:
        if r.startswith(b"S\t"):
            if named < keep:
                out.write(r[2:] + b"\0")
                named += 1
            else:
                counted += 1
        elif r:
            out.write(r + b"\0")
    if not chunk:
        break
if counted:
    out.write(b"C\t%d\0" % counted)
)PY";

// argv: root, path (under root), device, inode, size ('-': not checked), then the
// compressor's words (none: the bytes themselves). Every folder below root is
// opened with O_NOFOLLOW|O_DIRECTORY relative to the one before, the file with
// O_NOFOLLOW (O_NONBLOCK: a FIFO cannot hang it); the compressor reads that
// descriptor as its stdin.
constexpr const char* kListedCopy = R"PY(
import os, stat, sys
root, path, device, inode, size = sys.argv[1:6]
tool = sys.argv[6:]
def refuse(why):
    sys.stderr.write(why + "\n")
    sys.exit(65)
if not path.startswith(root + "/"):
    refuse(path + " is not under " + root)
parts, at = path[len(root) + 1:].split("/"), root
try:
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    for part in parts[:-1]:
        at = at + "/" + part
        sub = os.open(part, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=fd)
        os.close(fd)
        fd = sub
    at = path
    f = os.open(parts[-1], os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=fd)
    st = os.fstat(f)
except OSError as e:
    refuse(at + ": " + (e.strerror or str(e)) + " (a link, or no longer there)")
if not stat.S_ISREG(st.st_mode):
    refuse(path + " is no longer a regular file")
for name, listed, now in (("device", device, st.st_dev), ("inode", inode, st.st_ino), ("size", size, st.st_size)):
    if listed != "-" and int(listed) != now:
        refuse("%s: its %s is %d, the listing said %s (another file now)" % (path, name, now, listed))
os.set_blocking(f, True)
if tool:
    os.dup2(f, 0)
    try:
        os.execvp(tool[0], tool)
    except OSError as e:
        sys.stderr.write("cannot start %s: %s\n" % (tool[0], e.strerror))
        sys.exit(127)
out = sys.stdout.buffer
while True:
    block = os.read(f, 1 << 20)
    if not block:
        break
    out.write(block)
out.flush()
)PY";

std::string known(int64_t value) { return value < 0 ? "-" : std::to_string(value); }

}  // namespace

// Records, each ended by a NUL: P\t<path> a folder left out unread (every .cvs-aorta
// folder but this run's own: the suite's work folders and earlier runs' outputs; a
// folder of copies the suite made: it holds kCopyMarker, or kRunReportName lies
// beside it); L\t<path> a link to a folder, never followed; <%y>\t<mtime>\t<size>\t
// <device>:<inode>\t<path> a file (%y tells a link from a file); C\t<n> stale files
// counted; W\t<text> what find said of a folder it could not read (that costs only
// the folder). .git is left out silently.
std::string trace_listing_command(const std::string& repo, const std::string& run_id, double floor) {
  const std::string record = "%T@\\t%s\\t%D:%i\\t%P\\0";
  // Conservative by a second: select_traces judges what is printed against the floor itself.
  const long long stale_before = floor > 1 ? static_cast<long long>(std::floor(floor)) - 1 : 0;
  const std::string file_records =
      stale_before > 0 ? fmt::format("\\( -newermt @{} -printf '%y\\t{}' -o -printf 'S\\t%y\\t{}' \\)", stale_before,
                                     record, record)
                       : "-printf '%y\\t" + record + "'";
  return "cd " + shell_quote(repo) + " && { " + needs_python() +
         "e=$(mktemp 2>/dev/null) || e=/dev/null; find . -regextype posix-extended -name .git -prune -o \\( "
         "-regex '\\./\\" + std::string(kSuiteFolder) + "/[^/]+' ! -name " + shell_quote(run_id) +
         " -type d -o \\( -name traces -o -name combined_traces \\) -type d -exec test -e {}/" + kCopyMarker +
         " -o -e {}/../" + kRunReportName + " \\; \\) -prune -printf 'P\\t%P\\0' -o -type l -xtype d "
         "-printf 'L\\t%P\\0' -o -path '*/torch_profiler/*' ! -type d " + file_records + " 2>\"$e\" | " + kPython +
         shell_quote(kStaleFilter) + " " + std::to_string(kStaleNamed) +
         "; s=(\"${PIPESTATUS[@]}\"); if [ -s \"$e\" ]; then printf 'W\\t%s\\0' \"$(head -c 2000 \"$e\" | tr '\\n' ' ')\"; "
         "fi; [ \"$e\" = /dev/null ] || rm -f \"$e\"; [ \"${s[0]}\" -le 1 ] && [ \"${s[1]}\" = 0 ]; }";
}

std::string listed_copy_command(const std::string& repo, const FreshFile& file, Compression c) {
  std::string command = needs_python() + kPython + shell_quote(kListedCopy) + " " + shell_quote(repo) + " " +
                        shell_quote(repo + "/" + file.path) + " " + known(file.device) + " " + known(file.inode) +
                        " " + known(file.size);
  for (const auto& word : compressor_words(c)) command += " " + shell_quote(word);
  return command;
}

std::string changed_since_listed(const std::string& host, const std::string& path, const std::string& said) {
  return fmt::format("{} on {} changed or was replaced by a link after it was listed; not copied ({})", printable(path),
                     host, printable(said));
}

WalkStart walk_start(const std::string& checkout, const std::string& path) {
  if (!checkout.empty() && path.starts_with(checkout + "/") && path.size() > checkout.size() + 1)
    return {checkout, path.substr(checkout.size() + 1)};
  return {path, ""};
}

std::string checked_copy_command(const std::string& root, const std::string& relative) {
  FreshFile file;  // no size, device or inode: only the walk and the file's type are checked
  file.path = relative;
  return listed_copy_command(root, file, Compression::kNone);
}

std::string copy_said(const std::string& errors) {
  std::string said = errors.substr(0, 500);
  while (!said.empty() && std::isspace(static_cast<unsigned char>(said.back()))) said.pop_back();
  return said;
}

std::string refused_unlisted(const std::string& host, const std::string& path, const std::string& said) {
  return fmt::format("{} on {} was not copied: it is gone, not a regular file, or a folder on its path is a link ({})",
                     printable(path), host, printable(said));
}

}  // namespace aorta::job
