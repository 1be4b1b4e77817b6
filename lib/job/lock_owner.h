// Who holds a checkout's run lock, told by what cannot collide: the kernel's boot id,
// the pid namespace and the process's start in clock ticks after boot. A host name
// can be shared (containers with host networking, cloned VMs) and a wall clock can
// step; these cannot, so a lock is only ever taken from an owner they prove gone.
#pragma once

#include <optional>
#include <string>

namespace aorta::job {

// One process as the kernel knows it.
struct ProcessIdentity {
  std::string boot_id;  // /proc/sys/kernel/random/boot_id
  std::string pid_ns;   // the inode of /proc/self/ns/pid, "pid:[4026531836]"
  long pid = 0;
  unsigned long long start_ticks = 0;  // /proc/<pid>/stat field 22
};

// The suite that owns a lock: its run and where it runs.
struct LockOwner {
  std::string run_id, host, started;  // started: UTC, for people only
  ProcessIdentity process;
};

// This process, as the owner of run `run_id`.
LockOwner this_suite(const std::string& run_id);

// "run R, host H, pid P, started T, boot B, pidns N, ticks K": the lock's first line,
// which a refused run prints; parse_owner_line reads it back (nullopt when malformed).
std::string owner_line(const LockOwner& owner);
std::optional<LockOwner> parse_owner_line(const std::string& line);

// When `pid` started, in ticks after boot; nullopt when no such process is visible
// (or it is a zombie).
std::optional<unsigned long long> start_ticks(long pid);

// True only when `owner` ran in this kernel's boot and this pid namespace and no
// process of its pid and start is there any more. Anything else (another head
// node, a container's namespace, a reboot) cannot be seen from here: false.
bool gone_from_here(const ProcessIdentity& owner);

}  // namespace aorta::job
