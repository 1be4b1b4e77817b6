// How a run that is not managed reaches its nodes: local processes for the built-in
// local cluster, libssh2 for a cluster file's nodes (a managed run's are agents:
// app/managed_run).
#pragma once

#include <memory>

#include "cluster/transport.h"
#include "common/result.h"
#include "config/cluster.h"

namespace aorta::app {

Result<std::unique_ptr<cluster::Transport>> make_transport(const config::Cluster& c);

}  // namespace aorta::app
