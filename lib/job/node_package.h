// The suite's own package, placed on each node for node-side analysis over SSH (issue
// 46): the binary the head runs and, from the package layout (bin/aorta_suite beside
// lib/aorta_suite/, as the TGZ and the DEB install it), the libraries it brings. They go
// to <aorta_path>/.cvs-aorta/package/<id>, <id> the SHA-256 of their manifest, so the
// nodes run the head's very build. A node that already holds them (sha256sum -c against
// the manifest) gets nothing; the others get the files in a folder of their own, checked
// there, then renamed into place. Nodes that share storage get one copy: the first node
// missing it is placed alone, then the others are checked again. Other builds' packages
// there are removed (the run holds aorta_path's lock: no other run is using them).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/result.h"
#include "job/node_exec.h"

namespace aorta::job {

struct PackageFile {
  std::filesystem::path here;  // on the head
  std::string name;            // in the package: bin/aorta_suite, lib/aorta_suite/<soname>
  std::string sha256;
  uintmax_t bytes = 0;
};

struct Package {
  std::string id;  // SHA-256 of manifest()
  std::vector<PackageFile> files;
  uintmax_t bytes() const;
};

// The package of the binary at `binary`: it, and each library under ../lib/aorta_suite
// by the name the binary loads it by (a link's target under the link's name). An error
// when the binary is not in that layout (a build tree), naming what is missing.
Result<Package> package_of(const std::filesystem::path& binary);

// "<sha256>  <name>" lines, as sha256sum -c reads them.
std::string manifest(const Package& package);

// <aorta_path>/.cvs-aorta/package as the node sees it (in the container when there is one).
std::string package_root(const config::Variant& v);

// A bash command that prints kPackageHeld when `dir` holds every file of the package
// with its hash, kNoSha256sum when the node cannot tell, and nothing otherwise.
std::string package_check_command(const std::string& dir, const Package& package);
inline constexpr const char* kPackageHeld = "CVS_AORTA_PACKAGE_HELD";
inline constexpr const char* kNoSha256sum = "CVS_AORTA_NO_SHA256SUM";

// What placing did on each host (hosts[i]): the binary's path as the node sees it, or
// why the node does not have the package; and the line the run's log gets.
struct Placement {
  std::vector<Result<std::string>> binaries;
  std::string summary;
};

// Places `package` on `hosts` (a subset of exec.hosts()) as above; `run_id` names this
// run's folders in flight.
Placement place_package(NodeExec& exec, const std::vector<std::string>& hosts, const Package& package,
                        const std::string& run_id);

}  // namespace aorta::job
