// The configuration behaviours of the original's loader tests (reference §5.1),
// each checked by the error it must produce.
#include "config/variant_loader.h"

#include <cmath>
#include <functional>

#include <gtest/gtest.h>

#include "config/json_fields.h"
#include "tests/variant_fixture.h"
#include "metrics/threshold_catalogue.h"
#include "tests/temp_dir.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR, AORTA_SOURCE_DIR, AORTA_SUITE_BINARY

namespace aorta::config {
namespace {

TEST(VariantLoader, ValidFixtureLoadsWithDefaults) {
  auto loaded = load_with([](json&) {});
  expect_ok(loaded);
  const Variant& v = *loaded.load.variant;
  EXPECT_EQ(v.multi_node.master_launch_mode, "auto");
  EXPECT_TRUE(v.multi_node.collect_traces);
  EXPECT_EQ(v.container.args.ipc, "host");
  EXPECT_EQ(v.timeout_seconds, 3600);
  EXPECT_EQ(v.container.name, "alice_aorta");
}

// Issue 29, 6: the run registers what the config holds as secret (after placeholders:
// the values the nodes get), even when the config has errors that stop the run.
TEST(VariantLoader, ReturnsTheSecretsTheConfigHolds) {
  auto loaded = load_with([](json& v) {
    v["paths"]["cache_dir"] = "/scratch/{user-id}/t0ken-dir";
    v["container"]["env"]["HF_TOKEN"] = "{paths.cache_dir}";
    v["multi_node"]["extra_train_args"] = {"--password", "hunter2x"};
  });
  expect_ok(loaded);
  EXPECT_EQ(loaded.load.secrets, (std::vector<std::string>{"/scratch/alice/t0ken-dir", "hunter2x"}));
  auto broken = load_with([](json& v) {
    v["gpus_per_node"] = "many";
    v["container"]["env"]["DB_PASSWORD"] = "hunter2x";
  });
  EXPECT_FALSE(broken.load.variant);
  EXPECT_EQ(broken.load.secrets, std::vector<std::string>{"hunter2x"});
}

TEST(VariantLoader, MultiNodeRejectsUnknownKeyBadModeAndPorts) {
  expect_error(load_with([](json& v) { v["multi_node"]["bogus"] = 1; }), "multi_node.bogus: Unknown key");
  expect_error(load_with([](json& v) { v["multi_node"]["master_launch_mode"] = "magic"; }), "master_launch_mode");
  expect_error(load_with([](json& v) { v["multi_node"]["master_port"] = 80; }), "must be 0 (automatic) or 1024..65535");
  expect_error(load_with([](json& v) { v["multi_node"]["master_port"] = 65536; }), "must be 0 (automatic) or 1024..65535");
}

TEST(VariantLoader, TraceCompressionDefaultsToAutoAndIsChecked) {
  EXPECT_EQ(load_with([](json&) {}).load.variant->trace_compression, "auto");
  auto gzip = load_with([](json& v) { v["trace_compression"] = "gzip"; });
  expect_ok(gzip);
  EXPECT_EQ(gzip.load.variant->trace_compression, "gzip");
  expect_error(load_with([](json& v) { v["trace_compression"] = "lz4"; }),
               "trace_compression: must be auto, zstd, gzip or none, got 'lz4'");
}

TEST(VariantLoader, KeepNodeRunsDefaultsToTwoAndIsNeverNegative) {
  EXPECT_EQ(load_with([](json&) {}).load.variant->keep_node_runs, 2);
  auto none = load_with([](json& v) { v["keep_node_runs"] = 0; });
  expect_ok(none);
  EXPECT_EQ(none.load.variant->keep_node_runs, 0);
  expect_error(load_with([](json& v) { v["keep_node_runs"] = -1; }),
               "keep_node_runs: must be an integer >= 0 (0: keep no run's folder on the nodes)");
  expect_error(load_with([](json& v) { v["keep_node_runs"] = "all"; }), "keep_node_runs");
}

TEST(VariantLoader, JunitShapeIsGtestOrCvs) {
  EXPECT_EQ(load_with([](json&) {}).load.variant->junit_shape, "");
  auto cvs = load_with([](json& v) { v["junit_shape"] = "cvs"; });
  expect_ok(cvs);
  EXPECT_EQ(cvs.load.variant->junit_shape, "cvs");
  expect_error(load_with([](json& v) { v["junit_shape"] = "pytest"; }), "junit_shape: must be gtest or cvs, got 'pytest'");
}

TEST(VariantLoader, AnalysisWhereIsHeadOrNodes) {
  EXPECT_EQ(load_with([](json&) {}).load.variant->analysis.where, "head");
  auto nodes = load_with([](json& v) { v["analysis"]["where"] = "nodes"; });
  expect_ok(nodes);
  EXPECT_EQ(nodes.load.variant->analysis.where, "nodes");
  expect_error(load_with([](json& v) { v["analysis"]["where"] = "node"; }), "analysis.where: must be head or nodes, got 'node'");
}

TEST(VariantLoader, ArchiveTracesIsAllOutliersOrNoneAndLessThanAllNeedsNodeSideAnalysis) {
  EXPECT_EQ(load_with([](json&) {}).load.variant->analysis.archive_traces, "all");
  expect_ok(load_with([](json& v) { v["analysis"]["where"] = "nodes"; v["analysis"]["archive_traces"] = "outliers"; }));
  expect_error(load_with([](json& v) { v["analysis"]["archive_traces"] = "some"; }),
               "analysis.archive_traces: must be all, outliers or none, got 'some'");
  expect_error(load_with([](json& v) { v["analysis"]["archive_traces"] = "none"; }),
               "analysis.archive_traces: 'none' needs analysis.where \"nodes\"");
  // The traces left on the nodes are their only copy: no retention may remove them.
  expect_error(load_with([](json& v) {
                 v["analysis"]["where"] = "nodes";
                 v["analysis"]["archive_traces"] = "outliers";
                 v["keep_node_runs"] = 0;
               }),
               "keep_node_runs: 0 removes each run's folder on the nodes, but analysis.archive_traces 'outliers' leaves "
               "traces there as their only copy");
}

// Issue 32 (5): each element is one argument, quoted; CVS inserted them raw, so an
// element with whitespace was meant as several. Refused before any node is touched.
TEST(VariantLoader, TelemetryIsOnEverySecondByDefaultAndItsIntervalIsChecked) {
  const auto loaded = load_with([](json&) {});
  EXPECT_TRUE(loaded.load.variant->telemetry.enabled);
  EXPECT_EQ(loaded.load.variant->telemetry.interval_seconds, 1);
  expect_ok(load_with([](json& v) { v["telemetry"] = {{"enabled", false}, {"interval_seconds", 3600}}; }));
  for (int bad : {0, -1, 3601})
    expect_error(load_with([bad](json& v) { v["telemetry"]["interval_seconds"] = bad; }),
                 "telemetry.interval_seconds: must be an integer from 1 to 3600 (seconds between GPU samples), got " +
                     std::to_string(bad));
  expect_error(load_with([](json& v) { v["telemetry"]["interval_seconds"] = "1; reboot"; }), "telemetry.interval_seconds");
  expect_error(load_with([](json& v) { v["telemetry"]["tool"] = "nvidia-smi"; }), "telemetry.tool");
}

TEST(VariantLoader, ExtraLaunchArgumentWithWhitespaceRefusedNamingKeyAndElement) {
  expect_ok(load_with([](json& v) { v["multi_node"]["extra_train_args"] = {"--foo", "bar", "--x=1"}; }));
  expect_error(load_with([](json& v) { v["multi_node"]["extra_train_args"] = {"--seed", "--foo bar"}; }),
               "multi_node.extra_train_args[1]: element \"--foo bar\" holds whitespace, but each element is passed as "
               "one argument; split it into separate elements");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_torchrun_args"] = {"--rdzv_conf\tx=1"}; }),
               "multi_node.extra_torchrun_args[0]: element \"--rdzv_conf\\tx=1\" holds whitespace");
}

// Issue 43 (4): CVS splices the elements raw into a bash line, so one that bash reads
// differently ($VAR, a glob, a quote) would silently mean something else here.
TEST(VariantLoader, ExtraLaunchArgumentWithShellMeaningRefusedNamingKeyElementAndCharacter) {
  expect_error(load_with([](json& v) { v["multi_node"]["extra_train_args"] = {"--seed=1", "--run_name=$HOSTNAME"}; }),
               "multi_node.extra_train_args[1]: element \"--run_name=$HOSTNAME\" holds \"$\" (character 12), which "
               "starts a variable, command or arithmetic substitution in CVS's shell line, but aorta_suite passes each "
               "element as it stands; put the literal value you mean in the config");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_torchrun_args"] = {"--rdzv_endpoint=h:1", "--x=*"}; }),
               "multi_node.extra_torchrun_args[1]: element \"--x=*\" holds \"*\" (character 5), which is a file-name "
               "pattern");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_torchrun_args"] = {""}; }),
               "multi_node.extra_torchrun_args[0]: element \"\" is empty and vanishes in CVS's shell line");
  expect_ok(load_with([](json& v) {
    v["multi_node"]["extra_torchrun_args"] = {"--rdzv_endpoint=10.0.0.1:29500", "--local-ranks-filter=0,1"};
    v["multi_node"]["extra_train_args"] = {"--override", "model.name=meta/llama-3", "--allocator={128}"};
    v["training_overrides"] = {{"training.output_dir", "/scratch/$USER/out"}};  // CVS quotes override values
  }));
}

TEST(VariantLoader, TorchrunModeSettingsAccepted) {
  auto loaded = load_with([](json& v) {
    v["multi_node"] = {{"master_launch_mode", "torchrun"}, {"master_port", 29500}, {"nproc_per_node", 4},
                       {"master_addr", "10.0.0.1"}, {"extra_env", {{"NCCL_MIN_NCHANNELS", 4}}}};
  });
  expect_ok(loaded);
  EXPECT_EQ(loaded.load.variant->multi_node.nproc_per_node, 4);
  EXPECT_EQ(loaded.load.variant->multi_node.extra_env.at(0).second, "4");
}

TEST(VariantLoader, MissingGpusPerNodeRejected) {
  expect_error(load_with([](json& v) { v.erase("gpus_per_node"); }), "gpus_per_node: Field required");
}

TEST(VariantLoader, ChangemeIsAnUnresolvedPlaceholder) {
  expect_error(load_with([](json& v) { v["gpus_per_node"] = "<changeme>"; }),
               "gpus_per_node: Unresolved configuration placeholder: '<changeme>'");
  for (const char* bad : {"<changeme>", "<CHANGEME>", "{paths.unknown}"})
    expect_error(load_with([&](json& v) { v["multi_node"]["extra_env"] = {{"NCCL_IB_HCA", bad}}; }),
                 "Unresolved configuration placeholder");
}

TEST(VariantLoader, BracesInOpaqueFieldsArePreserved) {
  auto loaded = load_with([](json& v) {
    v["multi_node"]["extra_train_args"] = {"--allocator={128}"};
    v["multi_node"]["extra_env"] = {{"PYTORCH_ALLOC_CONF", "buckets:{128}"}};
  });
  expect_ok(loaded);
  EXPECT_EQ(loaded.load.variant->multi_node.extra_train_args.at(0), "--allocator={128}");
  EXPECT_EQ(loaded.load.variant->multi_node.extra_env.at(0).second, "buckets:{128}");
}

TEST(VariantLoader, UnknownBraceTokenOutsideOpaqueFieldsRejected) {
  expect_error(load_with([](json& v) { v["paths"]["shared_fs"] = "/scratch/{bogus}"; }),
               "Unresolved configuration placeholder: '/scratch/{bogus}");
}

TEST(VariantLoader, PathRulesRejectRelativeRootAndEscapes) {
  expect_error(load_with([](json& v) { v["aorta_path"] = "relative"; }), "aorta_path must be an absolute directory other than /");
  expect_error(load_with([](json& v) { v["container_mount_path"] = "/"; }),
               "container_mount_path must be an absolute directory other than /");
  expect_error(load_with([](json& v) { v["base_config"] = "../escape.yaml"; }),
               "Script/config paths must be relative to the Aorta repository: '../escape.yaml'");
  expect_error(load_with([](json& v) { v["build_script"] = "/absolute.sh"; }),
               "Script/config paths must be relative to the Aorta repository: '/absolute.sh'");
}

TEST(VariantLoader, RepositoryMountMustBeWritable) {
  expect_error(load_with([](json& v) { v["container"]["runtime"]["args"]["volumes"] = {"/scratch/alice/repo:/mnt:ro"}; }),
               "must include the writable mount '/scratch/alice/repo:/mnt'");
  for (const char* opts : {":rw,Z", ":rw,cached", ":Z"})
    expect_ok(load_with([&](json& v) {
      v["container"]["runtime"]["args"]["volumes"] = {std::string("/scratch/alice/repo:/mnt") + opts};
    }));
  expect_ok(load_with([](json& v) { v["container"]["runtime"]["args"]["volumes"] = {"/scratch/alice/repo/:/mnt"}; }));
}

TEST(VariantLoader, UnknownRuntimeArgNamed) {
  expect_error(load_with([](json& v) { v["container"]["runtime"]["args"]["privilaged"] = true; }),
               "Unknown container.runtime.args key(s): ['privilaged']");
}

TEST(VariantLoader, AutoCloneNeedsUrl) {
  expect_error(load_with([](json& v) { v["aorta_auto_clone"] = true; }),
               "aorta_clone_url is required when aorta_auto_clone is true");
}

TEST(VariantLoader, EnvironmentRules) {
  expect_error(load_with([](json& v) { v["multi_node"]["extra_env"] = {{"BAD-NAME", "1"}}; }),
               "Invalid environment entry: 'BAD-NAME'");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_env"] = {{"NCCL_MAX_NCHANNELS", "257"}}; }),
               "NCCL_MAX_NCHANNELS must be in 1..256");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_env"] = {{"TORCH_NCCL_HIGH_PRIORITY", "2"}}; }),
               "TORCH_NCCL_HIGH_PRIORITY must be 0 or 1");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_env"] = {{"RCCL_MSCCL_ENABLE", 2}}; }),
               "RCCL_MSCCL_ENABLE must be 0 or 1");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_env"] = {{"OMP_NUM_THREADS", "0"}}; }),
               "OMP_NUM_THREADS must be >= 1");
  expect_error(load_with([](json& v) { v["multi_node"]["extra_train_args"] = {1}; }),
               "Extra launch arguments must be strings");
  for (const char* ok : {"0", "1"})
    expect_ok(load_with([&](json& v) {
      v["multi_node"]["extra_env"] = {{"TORCH_NCCL_HIGH_PRIORITY", ok}, {"RCCL_MSCCL_ENABLE", ok}, {"OMP_NUM_THREADS", "1"}};
    }));
}

TEST(VariantLoader, OverrideKeysChecked) {
  expect_error(load_with([](json& v) { v["training_overrides"] = {{"bad key", 1}}; }),
               "Invalid training override key: 'bad key'");
}

TEST(VariantLoader, ThresholdRules) {
  auto with = [](const char* key, json value) {
    return load_with([](json&) {}, [&](json& t) { t["expected_results"][key] = value; });
  };
  expect_error(with("unknown", 1), "Unknown Aorta threshold: unknown");
  expect_error(with("min_compute_ratio", 1.1), "min_compute_ratio must be in 0..1");
  expect_error(with("min_overlap_ratio", -0.1), "min_overlap_ratio must be a finite non-negative number");
  expect_error(with("max_avg_iteration_ms", "NaN"), "max_avg_iteration_ms must be a finite non-negative number");
  expect_error(with("max_time_variance_ratio", "bad"), "max_time_variance_ratio must be a finite non-negative number");
  expect_error(with("max_time_variance_ratio", true), "max_time_variance_ratio must be a finite non-negative number");
  expect_error(load_with([](json&) {}, [](json& t) { t["extra"] = 1; }),
               "Aorta threshold files must contain an expected_results block");
}

// Every catalogue key is accepted by the loader with its value and order, and its
// range is the catalogue's: adding a row is all a new key needs.
TEST(ThresholdCatalogue, EveryKeyRoundTripsThroughTheLoader) {
  std::vector<std::string> keys;
  for (const auto& spec : metrics::threshold_catalogue()) {
    keys.push_back(spec.key);
    auto only = [&](json value) {
      return load_with([](json&) {}, [&](json& t) { t["expected_results"] = {{spec.key, value}}; });
    };
    // 1.25 for a slowdown ratio, whose range starts at 1.
    const double inside = spec.min_limit + 0.25;
    auto loaded = only(inside);
    expect_ok(loaded);
    if (!loaded.load.variant) continue;
    ASSERT_EQ(loaded.load.variant->thresholds.size(), 1u) << spec.key;
    EXPECT_EQ(loaded.load.variant->thresholds[0].key, spec.key);
    EXPECT_EQ(loaded.load.variant->thresholds[0].value, inside) << spec.key;
    if (spec.min_limit > 0) expect_error(only(spec.min_limit - 0.5), std::string(spec.key) + " must be in 1..inf");
    if (std::isinf(spec.max_limit))
      expect_ok(only(1e6));
    else
      expect_error(only(spec.max_limit + 0.5), std::string(spec.key) + " must be in 0..1");
    expect_error(only(-1), std::string(spec.key) + " must be a finite non-negative number");
  }
  EXPECT_EQ(threshold_keys(), keys);
}

TEST(VariantLoader, EnforcedThresholdsNeedAtLeastOne) {
  auto empty = [](json& t) { t = json::object(); };
  expect_error(load_with([](json&) {}, empty), "requires at least one expected_results threshold");
  expect_ok(load_with([](json& v) { v["enforce_thresholds"] = false; }, empty));
  auto all_null = [](json& t) {
    for (auto& [k, value] : t["expected_results"].items()) value = nullptr;
  };
  expect_error(load_with([](json&) {}, all_null), "at least one");
}

TEST(VariantLoader, PlaceholdersResolveAndThresholdsComeFromSibling) {
  auto loaded = load_with([](json&) {});
  expect_ok(loaded);
  const Variant& v = *loaded.load.variant;
  EXPECT_EQ(v.aorta_path, "/scratch/alice/repo");
  EXPECT_EQ(v.container.args.volumes.at(0), "/scratch/alice/repo:/mnt");
  ASSERT_EQ(v.paths.size(), 4u);
  EXPECT_EQ(v.paths[2].first, "log_dir");
  EXPECT_EQ(v.paths[2].second, "/scratch/alice/logs");
  ASSERT_EQ(v.thresholds.size(), 4u);
  EXPECT_EQ(v.thresholds[0].key, "max_avg_iteration_ms");
  EXPECT_EQ(*v.thresholds[0].value, 12000);
  EXPECT_EQ(*v.thresholds[3].value, 0.5);
}

TEST(VariantLoader, ThresholdFileDiscovery) {
  aorta::testing::TempDir dir;
  auto file = dir.write("v.json", valid_variant().dump());
  auto none = load_variant(file, {"alice", ""});
  ASSERT_FALSE(none.errors.empty());
  EXPECT_NE(none.errors[0].message.find("no *threshold.json next to config"), std::string::npos);
  dir.write("a_threshold.json", valid_thresholds().dump());
  dir.write("b_threshold.json", valid_thresholds().dump());
  auto two = load_variant(file, {"alice", ""});
  ASSERT_FALSE(two.errors.empty());
  EXPECT_NE(two.errors[0].message.find("multiple *threshold.json files next to config (ambiguous)"), std::string::npos);
  json v = valid_variant();
  v["threshold_json"] = "b_threshold.json";
  auto chosen = load_variant(dir.write("v.json", v.dump()), {"alice", ""});
  EXPECT_TRUE(chosen.variant.has_value());
  v["threshold_json"] = "missing_threshold.json";
  auto missing = load_variant(dir.write("v.json", v.dump()), {"alice", ""});
  ASSERT_FALSE(missing.errors.empty());
  EXPECT_NE(missing.errors[0].message.find("threshold_json not found"), std::string::npos);
}

TEST(VariantLoader, EveryErrorOfAFileIsReportedWithFileAndKey) {
  auto loaded = load_with([](json& v) {
    v["aorta_path"] = "relative";
    v["gpus_per_node"] = 0;
    v["surprise"] = true;
  });
  ASSERT_GE(loaded.load.errors.size(), 3u) << loaded.all_errors();
  for (const auto& e : loaded.load.errors) EXPECT_NE(e.file.find("variant.json"), std::string::npos);
  std::string all = loaded.all_errors();
  EXPECT_NE(all.find("variant.json: aorta_path: aorta_path must be an absolute directory"), std::string::npos) << all;
  EXPECT_NE(all.find("variant.json: gpus_per_node: must be an integer > 0"), std::string::npos) << all;
  EXPECT_NE(all.find("variant.json: surprise: Unknown key"), std::string::npos) << all;
}

TEST(VariantLoader, RemoteModelNotImplemented) {
  expect_error(load_with([](json& v) { v["model"]["remote"] = 1; }), "model.remote=1 (remote model download) is not implemented");
}

TEST(VariantLoader, LaxScalarsAcceptedWrongTypesNamed) {
  expect_ok(load_with([](json& v) {
    v["gpus_per_node"] = "8";
    v["skip_rccl_build"] = "true";
  }));
  expect_error(load_with([](json& v) { v["skip_rccl_build"] = "maybe"; }), "skip_rccl_build: must be a boolean");
  expect_error(load_with([](json& v) { v["timeout_seconds"] = "soon"; }), "timeout_seconds: must be an integer");
}

TEST(VariantLoader, NoneRuntimeNeedsNoMountOrImage) {
  auto loaded = load_with([](json& v) {
    v["container"] = {{"name", ""}, {"image", ""}, {"runtime", {{"name", "none"}, {"args", json::object()}}}};
  });
  expect_ok(loaded);
  EXPECT_EQ(loaded.load.variant->node_repo_path(), "/scratch/alice/repo");
  expect_error(load_with([](json& v) { v["container"]["runtime"]["name"] = "enroot"; }), "enroot runtime is not implemented");
}

TEST(VariantLoader, ShippedVariantsLoadOnceChangemesAreSet) {
  aorta::testing::TempDir dir;
  const std::filesystem::path src = AORTA_SOURCE_DIR;
  for (const char* name : {"mi3xx_aorta_profile_overlap_2gpu_single.json", "mi3xx_aorta_profile_overlap_2gpu_distributed.json"}) {
    std::ifstream in(src / "configs" / name);
    json v = json::parse(in);
    auto untouched = load_variant(src / "configs" / name, {"alice", ""});
    EXPECT_FALSE(untouched.variant.has_value()) << name << " must not load with <changeme> left in it";
    v["paths"]["shared_fs"] = "/scratch/alice";
    v["gpus_per_node"] = 2;
    v["multi_node"]["extra_env"] = json::object();
    v["threshold_json"] = (src / "thresholds" / "mi3xx_aorta_profile_overlap_2gpu_threshold.json").string();
    auto loaded = load_variant(dir.write(name, v.dump()), {"alice", ""});
    ASSERT_TRUE(loaded.variant.has_value()) << name;
    EXPECT_EQ(loaded.variant->container.args.shm_size, "17G");
    EXPECT_EQ(loaded.variant->aorta_path, "/scratch/alice/repo");
  }
}

}  // namespace
}  // namespace aorta::config
