// The node's working folder (aorta_path and the folder it is cloned into): private
// to the invoking user (issue 14); job/checkout_lock.h keeps it to one run at a time. Everything the
// suite runs comes from this folder, so whoever can write to it runs code as the
// suite's user on the node, root included.
#pragma once

#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"
#include "job/run_state.h"

namespace aorta::job {

// A bash command that creates `path` as needed with mode 0700 (umask 077).
std::string private_mkdir_command(const std::string& path);

// A bash command that checks `path` (it may not exist yet) and every folder above
// it, literally and with links resolved: each must belong to the invoking user or
// root; the first `strict_levels` (the path itself, and in clone mode the folder it
// is cloned into) must not be writable by group or others, folders above them only
// when sticky (/tmp). On a violation it prints "UNSAFE <reason>" and exits 3.
std::string workdir_check_command(const std::string& path, int strict_levels);

// Runs the check on every node; the error names each node and the folder at fault,
// and says how to fix it or opt out (trust_aorta_path).
Status check_workdir(NodeExec& exec);

}  // namespace aorta::job
