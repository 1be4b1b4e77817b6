#include "job/workdir.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "common/shell_quote.h"
#include "common/utf8.h"
#include "job/phase.h"

namespace aorta::job {
namespace {

constexpr const char* kUnsafe = "UNSAFE ";

}  // namespace

std::string private_mkdir_command(const std::string& path) {
  return "( umask 077 && mkdir -p -- " + shell_quote(path) + " )";
}

std::string workdir_check_command(const std::string& path, int strict_levels) {
  std::string p = shell_quote(path);
  return "me=$(id -u)\n"
         "unsafe() { printf '" + std::string(kUnsafe) + "%s\\n' \"$1\"; exit 3; }\n"
         "walk() {\n"
         "  q=$1; strict=$2\n"
         "  while :; do\n"
         "    if [ -L \"$q\" ] || [ -e \"$q\" ]; then\n"
         "      o=$(stat -c %u -- \"$q\") || unsafe \"cannot stat $q\"\n"
         "      if [ \"$o\" != \"$me\" ] && [ \"$o\" != 0 ]; then\n"
         "        n=$(getent passwd \"$o\" | cut -d: -f1)\n"
         "        unsafe \"$q belongs to uid $o${n:+ ($n)}, not to you (uid $me) or root\"\n"
         "      fi\n"
         "      if [ ! -L \"$q\" ]; then\n"
         "        m=$(stat -c %a -- \"$q\") || unsafe \"cannot stat $q\"\n"
         "        m=$((8#$m))\n"
         "        if [ $((m & 8#022)) -ne 0 ] && { [ \"$strict\" -gt 0 ] || [ $((m & 8#1000)) -eq 0 ]; }; then\n"
         "          unsafe \"$q is writable by group or others (mode $(printf %04o \"$m\"))\"\n"
         "        fi\n"
         "      fi\n"
         "    fi\n"
         "    strict=$((strict - 1))\n"
         "    [ \"$q\" = / ] && return 0\n"
         "    q=$(dirname -- \"$q\")\n"
         "  done\n"
         "}\n"
         "walk " + p + " " + std::to_string(strict_levels) + "\n"
         // A link in the path (owned by you or root) may still lead somewhere unsafe.
         "r=$(realpath -m -- " + p + ") || unsafe \"cannot resolve \"" + p + "\n"
         "if [ \"$r\" != " + p + " ]; then walk \"$r\" " + std::to_string(strict_levels) + "; fi\n"
         // Inside an existing checkout too: its scripts are what runs, so a file or folder
         // someone else owns or may write is as dangerous as a planted checkout.
         "if [ -d \"$r\" ]; then\n"
         "  b=$(find \"$r\" -xdev ! -user \"$me\" ! -user 0 -print -quit 2>/dev/null)\n"
         "  [ -z \"$b\" ] || unsafe \"$b (inside aorta_path) belongs to uid $(stat -c %u -- \"$b\"), not to you (uid $me) or root\"\n"
         "  b=$(find \"$r\" -xdev ! -type l -perm /022 -print -quit 2>/dev/null)\n"
         "  [ -z \"$b\" ] || unsafe \"$b (inside aorta_path) is writable by group or others (mode $(stat -c %04a -- \"$b\"))\"\n"
         "fi\n";
}

Status check_workdir(NodeExec& exec) {
  const auto& v = exec.variant();
  if (v.trust_aorta_path) return ok_status();
  // In clone mode the folder the checkout is cloned into is the suite's working
  // folder too: the existing-checkout shortcut trusts whatever is found there.
  int strict = v.aorta_auto_clone ? 2 : 1;
  auto results = exec.on_hosts(workdir_check_command(v.aorta_path, strict), std::chrono::seconds(60));
  std::string errors;
  for (const auto& r : results) {
    std::string reason;
    if (!r.result.ok()) {
      reason = r.result.error().message;
    } else if (r.result->exit_code != 0) {
      auto unsafe = marked_line(r.result->output, kUnsafe);
      reason = unsafe ? *unsafe
                      : fmt::format("the check failed (exit {}): {}", r.result->exit_code, r.result->output.substr(0, 500));
    } else {
      continue;
    }
    errors += (errors.empty() ? "" : "; ") + ("node " + r.host + ": " + reason);
  }
  if (errors.empty()) return ok_status();
  return Error{ErrorCode::kCommandFailed,
               "aorta_path " + v.aorta_path + " is not safe to run from: " + errors +
                   ". Whoever can write there runs their scripts as you on the node. Remove or fix it "
                   "(chown, chmod -R go-w), choose an aorta_path only you can write to, or set \"trust_aorta_path\": "
                   "true in the config to use it anyway",
               ""};
}

}  // namespace aorta::job
