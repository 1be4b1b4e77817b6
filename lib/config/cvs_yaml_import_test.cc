// CVS's own sample aorta_benchmark.yaml (tests/data/cvs_aorta, MIT) imported gives the
// run test_aorta makes, and the result loads with the run's loader. Expected values are
// read off the sample and CVS's runner (cvs/runners/aorta.py, cvs/parsers/schemas.py).
#include "config/cvs_yaml_import.h"

#include <gtest/gtest.h>

#include "config/variant_loader.h"
#include "config/yaml_document.h"
#include "test_paths.h"  // AORTA_TEST_DATA_DIR
#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

const std::string kSample = std::string(AORTA_TEST_DATA_DIR) + "/cvs_aorta/aorta_benchmark.yaml";

CvsYamlImport from_text(const std::string& text) {
  ConfigErrors errors("f.yaml");
  auto doc = parse_yaml_text(text, errors);
  EXPECT_TRUE(doc) << errors.list().front().describe();
  return import_cvs_yaml(doc.value_or(json::object()), "f.yaml", "t_threshold.json");
}

std::string errors_of(const CvsYamlImport& r) {
  std::string out;
  for (const auto& e : r.errors) out += e.describe() + "\n";
  return out;
}

// Both files written into dir and loaded as a run loads them.
VariantLoad write_and_load(const CvsYamlImport& r, const aorta::testing::TempDir& dir) {
  dir.write("t_threshold.json", r.thresholds.dump());
  return load_variant(dir.write("t.json", r.variant->dump()), {"alice", ""});
}

TEST(CvsYamlImport, TheSampleGivesTestAortasContainerScriptsAndEnvironment) {
  auto r = import_cvs_yaml_file(kSample, "t_threshold.json");
  ASSERT_TRUE(r.variant) << errors_of(r);
  const json& v = *r.variant;
  EXPECT_EQ(v["aorta_path"], "/home/{user-id}/aorta");
  EXPECT_EQ(v["container_mount_path"], "/mnt");
  EXPECT_EQ(v["base_config"], "config/profile_overlap_2gpu.yaml");
  EXPECT_EQ(v["experiment_script"], "scripts/launch_rocm.sh");
  EXPECT_EQ(v["build_script"], "scripts/launch_rocm.sh");
  EXPECT_EQ(v["gpus_per_node"], 8);
  EXPECT_EQ(v["timeout_seconds"], 3600);
  EXPECT_EQ(v["skip_rccl_build"], true);
  EXPECT_EQ(v["aorta_auto_clone"], false);
  EXPECT_FALSE(v.contains("aorta_clone_url"));  // commented out in the sample
  const json& c = v["container"];
  EXPECT_EQ(c["image"], "jeffdaily/pytorch:torchrec-dlrm-complete");
  EXPECT_EQ(c["name"], "aorta-benchmark");
  EXPECT_EQ(c["runtime"]["args"]["volumes"], json::array({"/home/{user-id}/aorta:/mnt"}));
  EXPECT_EQ(c["runtime"]["args"]["shm_size"], "17G");
  EXPECT_EQ(c["runtime"]["args"]["network"], "host");
  EXPECT_EQ(c["runtime"]["args"]["privileged"], true);
  EXPECT_EQ(c["env"], json::parse(R"({"NCCL_MAX_NCHANNELS": "112", "NCCL_MAX_P2P_NCHANNELS": "112",
      "NCCL_DEBUG": "VERSION", "TORCH_NCCL_HIGH_PRIORITY": "1", "OMP_NUM_THREADS": "1", "RCCL_MSCCL_ENABLE": "0"})"));
  EXPECT_EQ(v["training_overrides"], json::parse(R"({"training.max_steps": 15, "profiling.active": 6})"));
  EXPECT_EQ(v["rccl"], json::parse(R"({"clone_url": "https://github.com/ROCm/rccl", "branch": "develop",
      "build_path": "/mnt/rccl"})"));
  EXPECT_EQ(v["analysis"]["enable_tracelens"], false);
  EXPECT_EQ(r.thresholds, json::parse(R"({"expected_results": {"max_avg_iteration_ms": 12000,
      "min_compute_ratio": 0.01, "min_overlap_ratio": 0.0, "max_time_variance_ratio": 0.5}})"));
  EXPECT_EQ(v["enforce_thresholds"], true);
  EXPECT_TRUE(r.notes.empty());
}

TEST(CvsYamlImport, TheSamplesImportLoadsWithTheRunsLoader) {
  auto r = import_cvs_yaml_file(kSample, "t_threshold.json");
  ASSERT_TRUE(r.variant) << errors_of(r);
  aorta::testing::TempDir dir;
  auto loaded = write_and_load(r, dir);
  ASSERT_TRUE(loaded.variant) << loaded.errors.front().describe();
  const Variant& v = *loaded.variant;
  EXPECT_EQ(v.aorta_path, "/home/alice/aorta");
  EXPECT_EQ(v.container.args.volumes, std::vector<std::string>{"/home/alice/aorta:/mnt"});
  EXPECT_EQ(v.ranks_per_node(), 8);
  EXPECT_EQ(v.multi_node.master_launch_mode, "auto");
  ASSERT_EQ(v.thresholds.size(), 4u);
  EXPECT_EQ(v.thresholds[0].key, "max_avg_iteration_ms");
  EXPECT_EQ(v.thresholds[0].value, 12000.0);
  EXPECT_EQ(v.thresholds[3].value, 0.5);
}

TEST(CvsYamlImport, KeysLeftOutTakeCvsDefaultsNotOurs) {
  auto r = from_text("aorta_path: /opt/aorta\n");
  ASSERT_TRUE(r.variant) << errors_of(r);
  const json& v = *r.variant;
  EXPECT_EQ(v["timeout_seconds"], 10800);
  EXPECT_EQ(v["gpus_per_node"], 8);
  EXPECT_EQ(v["base_config"], "config/distributed.yaml");
  EXPECT_EQ(v["experiment_script"], "scripts/rccl_exp.sh");
  EXPECT_EQ(v["rccl"]["clone_url"], "https://github.com/ROCmSoftwarePlatform/rccl.git");
  EXPECT_EQ(v["analysis"]["enable_tracelens"], true);
  EXPECT_EQ(v["skip_rccl_build"], false);
  EXPECT_EQ(v["container"]["env"]["NCCL_MAX_NCHANNELS"], "112");
  EXPECT_EQ(r.thresholds["expected_results"]["min_compute_ratio"], nullptr);
  EXPECT_EQ(v["enforce_thresholds"], false);  // no gate: test_validate_thresholds checked nothing
  aorta::testing::TempDir dir;
  auto loaded = write_and_load(r, dir);
  EXPECT_TRUE(loaded.variant) << loaded.errors.front().describe();
}

TEST(CvsYamlImport, KeysCvsRefusedAreRefusedNamingThem) {
  auto r = from_text("aorta_path: /a\ncontainer: {}\ndocker: {imag: x}\nrccl: {url: y}\nanalysis: {tracelens: 1}\n");
  EXPECT_FALSE(r.variant);
  EXPECT_EQ(errors_of(r),
            "f.yaml: container: Unknown key (not part of the Aorta config schema)\n"
            "f.yaml: docker.imag: Unknown key (not part of the Aorta config schema)\n"
            "f.yaml: rccl.url: Unknown key (not part of the Aorta config schema)\n"
            "f.yaml: analysis.tracelens: Unknown key (not part of the Aorta config schema)\n");
  EXPECT_NE(errors_of(from_text("gpus_per_node: 8\n")).find("aorta_path: Field required"), std::string::npos);
}

TEST(CvsYamlImport, ValuesOutsideCvsRulesAreRefused) {
  auto r = from_text(
      "aorta_path: /a\ntimeout_seconds: 59\nenvironment: {NCCL_MAX_NCHANNELS: 300}\nrccl: {branch: 2.10}\n"
      "expected_results: {min_compute_ratio: 1.5}\ntraining_overrides: {a.b: [1]}\nskip_rccl_build: maybe\n");
  const std::string e = errors_of(r);
  EXPECT_NE(e.find("f.yaml: environment.NCCL_MAX_NCHANNELS: must be an integer in 1..256"), std::string::npos) << e;
  EXPECT_NE(e.find("f.yaml: rccl.branch: must be text, got 2.1 (PyYAML read it as a number"), std::string::npos) << e;
  EXPECT_NE(e.find("f.yaml: timeout_seconds: must be an integer in 60.."), std::string::npos) << e;
  EXPECT_NE(e.find("f.yaml: expected_results.min_compute_ratio: must be a number >= 0 and <= 1"), std::string::npos);
  EXPECT_NE(e.find("f.yaml: training_overrides.a.b: must be a single value"), std::string::npos) << e;
  EXPECT_NE(e.find("f.yaml: skip_rccl_build: must be true or false"), std::string::npos) << e;
}

TEST(CvsYamlImport, WhatCvsAcceptedButNeverAppliedIsNamedNotCarried) {
  auto r = from_text("aorta_path: /a\nenvironment: {NCCL_IB_HCA: mlx5_0}\nexpected_results: {max_avg_step_time_ms: 9}\n");
  ASSERT_TRUE(r.variant) << errors_of(r);
  EXPECT_FALSE(r.variant->at("container").at("env").contains("NCCL_IB_HCA"));
  EXPECT_FALSE(r.thresholds["expected_results"].contains("max_avg_step_time_ms"));
  ASSERT_EQ(r.notes.size(), 2u);
  EXPECT_EQ(r.notes[0].rfind("environment.NCCL_IB_HCA not carried: test_aorta accepted it but never set it", 0), 0u);
  EXPECT_EQ(r.notes[1].rfind("expected_results.max_avg_step_time_ms not carried", 0), 0u);
}

TEST(CvsYamlImport, PlaceholdersAndOverridesMeanWhatTheyMeantToCvs) {
  auto r = from_text("aorta_path: /home/{user}/aorta\ntraining_overrides: {training.compile: yes, lr: 0.5}\n");
  ASSERT_TRUE(r.variant) << errors_of(r);
  EXPECT_EQ(r.variant->at("aorta_path"), "/home/{user-id}/aorta");
  // test_aorta passed str(value): Python's True; a number stays a number.
  EXPECT_EQ(r.variant->at("training_overrides"), json::parse(R"({"training.compile": "True", "lr": 0.5})"));
  EXPECT_NE(errors_of(from_text("aorta_path: '{home}/aorta'\n")).find("f.yaml: aorta_path: uses {home}, which CVS"),
            std::string::npos);
}

}  // namespace
}  // namespace aorta::config
