// The private-registry login before a pull, as CVS's registry_login does it
// (cvs/core/runtimes/docker.py): `docker login --username U --password-stdin SERVER`
// on the node, the password read there from password_file. The password is on no
// command line, in no environment and in no log; only the file's path is ever shown.
#pragma once

#include <string>
#include <vector>

#include "cluster/transport.h"
#include "config/variant.h"

namespace aorta::job {

// Printed by the login command when it fails, so the pull's caller can tell a failed
// login from a failed pull in one round trip.
inline constexpr const char* kLoginFailedMarker = "AORTA_REGISTRY_LOGIN_FAILED";

// Shell text: logs `docker` (the node's docker command, "sudo -n docker" included) in
// to the registry, stdin redirected from password_file by the user's own shell; a
// file the user cannot read is said as such. Fails printing kLoginFailedMarker.
std::string registry_login_command(const config::Registry& registry, const std::string& docker);

// Whether this node's pull command failed at the login.
bool login_failed(const cluster::HostResult& r);

// The error for the nodes whose login failed: server, user, file and what to do,
// with what each node said (the marker taken out).
std::string login_failure(const config::Registry& registry, const std::vector<cluster::HostResult>& failed);

}  // namespace aorta::job
