// Issue 43 (7): CVS's container.runtime.args.registry object (cvs/core/runtimes/
// docker.py registry_login, cvs/input/cluster_file/README.md): username and
// password_file required, server optional, anything else refused.
#include <gtest/gtest.h>

#include "tests/variant_fixture.h"

namespace aorta::config {
namespace {

void set_registry(json& v, const json& registry) { v["container"]["runtime"]["args"]["registry"] = registry; }

TEST(VariantRegistry, CvsObjectIsRead) {
  auto loaded = load_with([](json& v) {
    set_registry(v, {{"username", "robot"}, {"password_file", "/home/u/.docker_token"}, {"server", "reg.example:5000"}});
  });
  expect_ok(loaded);
  const auto& r = loaded.load.variant->container.args.registry;
  EXPECT_EQ(r.username, "robot");
  EXPECT_EQ(r.password_file, "/home/u/.docker_token");
  EXPECT_EQ(r.server, "reg.example:5000");
  EXPECT_TRUE(r.configured());
  // No server: the engine's default registry. A null or empty object: no login, as CVS.
  auto hub = load_with([](json& v) { set_registry(v, {{"username", "u"}, {"password_file", "/p"}}); });
  expect_ok(hub);
  EXPECT_EQ(hub.load.variant->container.args.registry.server, "");
  for (const json& none : {json(nullptr), json::object()}) {
    auto off = load_with([&](json& v) { set_registry(v, none); });
    expect_ok(off);
    EXPECT_FALSE(off.load.variant->container.args.registry.configured());
  }
}

TEST(VariantRegistry, WrongShapesAreRefusedNamingTheKey) {
  const std::string p = "container.runtime.args.registry";
  expect_error(load_with([](json& v) { set_registry(v, "reg.example"); }),
               p + ": must be an object with username, password_file and optionally server (as in CVS), got "
                   "\"reg.example\"");
  expect_error(load_with([](json& v) { set_registry(v, {{"username", "u"}}); }), p + ".password_file: Field required");
  expect_error(load_with([](json& v) { set_registry(v, {{"password_file", "/p"}}); }), p + ".username: Field required");
  expect_error(load_with([](json& v) { set_registry(v, {{"username", ""}, {"password_file", "/p"}}); }),
               p + ".username: must not be empty");
  expect_error(load_with([](json& v) { set_registry(v, {{"username", "u"}, {"password_file", "/p"}, {"email", "e"}}); }),
               p + ".email: Unknown key");
  expect_error(load_with([](json& v) { set_registry(v, {{"username", "u"}, {"password_file", "/p"}, {"server", "-x"}}); }),
               p + ".server: must be a registry host (and port), got \"-x\"");
  expect_error(load_with([](json& v) { set_registry(v, {{"username", "u"}, {"password", "hunter2"}}); }),
               p + ".password: a password is never put in the config: write it to a file on each node and name that "
                   "file in password_file");
}

}  // namespace
}  // namespace aorta::config
