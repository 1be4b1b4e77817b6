// YAML read as PyYAML's safe_load reads it (CVS's test_aorta config), and hostile YAML
// answered with an error naming the key, never a crash, a hang or unbounded memory.
#include "config/yaml_document.h"

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "tests/temp_dir.h"

namespace aorta::config {
namespace {

std::string first_error(const std::string& text) {
  ConfigErrors errors("f.yaml");
  auto doc = parse_yaml_text(text, errors);
  EXPECT_FALSE(doc.has_value()) << doc->dump();
  return errors.empty() ? "" : errors.list().front().describe();
}

TEST(YamlDocument, PlainScalarsAreTypedAsPyYamlTypesThem) {
  // YAML 1.1 words and number forms (PyYAML's resolver), each value worked out by hand.
  EXPECT_EQ(*plain_scalar("yes"), json(true));
  EXPECT_EQ(*plain_scalar("Off"), json(false));
  EXPECT_EQ(*plain_scalar("~"), json(nullptr));
  EXPECT_EQ(*plain_scalar(""), json(nullptr));
  EXPECT_EQ(*plain_scalar("012"), json(10));         // octal: 1*8 + 2
  EXPECT_EQ(*plain_scalar("0x1F"), json(31));        // 16 + 15
  EXPECT_EQ(*plain_scalar("0b101"), json(5));
  EXPECT_EQ(*plain_scalar("1_000"), json(1000));
  EXPECT_EQ(*plain_scalar("-9223372036854775808"), json(-9223372036854775807LL - 1));
  EXPECT_EQ(*plain_scalar("0.5"), json(0.5));
  EXPECT_EQ(*plain_scalar("1.5e+3"), json(1500.0));
  EXPECT_EQ(*plain_scalar("1e5"), json("1e5"));      // no dot, no float in YAML 1.1
  EXPECT_EQ(*plain_scalar("2.10"), json(2.1));
  EXPECT_EQ(*plain_scalar("17G"), json("17G"));
  EXPECT_EQ(*plain_scalar("develop"), json("develop"));
  EXPECT_FALSE(plain_scalar(".inf").has_value());
  EXPECT_FALSE(plain_scalar(".nan").has_value());
  EXPECT_FALSE(plain_scalar("9223372036854775808").has_value());
}

TEST(YamlDocument, QuotedAndStrTaggedScalarsStayText) {
  ConfigErrors errors("f.yaml");
  auto doc = parse_yaml_text("a: 'yes'\nb: \"12\"\nc: !!str 0x10\nd: [1, x]\ne:\n", errors);
  ASSERT_TRUE(doc) << errors.list().front().describe();
  EXPECT_EQ(*doc, json::parse(R"({"a": "yes", "b": "12", "c": "0x10", "d": [1, "x"], "e": null})"));
}

TEST(YamlDocument, DuplicateMergeAndNonScalarKeysAreRefusedWithKeyAndLine) {
  EXPECT_EQ(first_error("docker:\n  image: a\n  image: b\n"),
            "f.yaml: docker.image: appears twice in the same mapping (CVS kept the last silently); keep one (line 3)");
  EXPECT_NE(first_error("base: &b {x: 1}\nrccl:\n  <<: *b\n").find("rccl.<<: is a merge key"), std::string::npos);
  EXPECT_NE(first_error("? [a, b]\n: 1\n").find("has a key that is not a plain word"), std::string::npos);
}

TEST(YamlDocument, TagsBeyondTheCoreOnesAreRefused) {
  EXPECT_NE(first_error("aorta_path: !!python/object/apply:os.system ['id']\n")
                .find("aorta_path: has the tag tag:yaml.org,2002:python/object/apply:os.system"),
            std::string::npos);
  EXPECT_NE(first_error("x: !custom 1\n").find("has the tag !custom"), std::string::npos);
}

TEST(YamlDocument, AnAliasBombIsNamedQuicklyNotExpanded) {
  // Nine levels of ten aliases each: 10^9 values if expanded.
  std::string text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int i = 1; i <= 9; ++i) {
    text += "a" + std::to_string(i) + ": &a" + std::to_string(i) + " [";
    for (int j = 0; j < 10; ++j) text += (j ? ", *a" : "*a") + std::to_string(i - 1);
    text += "]\n";
  }
  auto start = std::chrono::steady_clock::now();
  EXPECT_NE(first_error(text).find("expands to more than 100000 values"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

// Review finding: one 500 KB scalar aliased 100,000 times is under the value count but
// would copy 50 GB; the text its scalars add up to is bounded too.
TEST(YamlDocument, ALongValueRepeatedByAliasesIsNamedNotCopied) {
  std::string text = "name: &a " + std::string(500000, 'x') + "\nlist: [";
  for (int i = 0; i < 100000; ++i) text += i ? ", *a" : "*a";
  text += "]\n";
  auto start = std::chrono::steady_clock::now();
  EXPECT_NE(first_error(text).find("text expands to more than 4 MiB"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(YamlDocument, DeepNestingAndSelfReferenceAreErrorsNotCrashes) {
  EXPECT_EQ(first_error("a: " + std::string(100000, '[') + std::string(100000, ']') + "\n"),
            "f.yaml: nests deeper than 64 levels (line 1)");
  EXPECT_NE(first_error("a: " + std::string(100, '[') + std::string(100, ']') + "\n").find("nests deeper than 64"),
            std::string::npos);
  std::string nested_maps = "a:\n";
  for (int i = 1; i < 80; ++i) nested_maps += std::string(2 * i, ' ') + "k:\n";
  EXPECT_NE(first_error(nested_maps).find("nests deeper than 64"), std::string::npos);
  EXPECT_NE(first_error("a: &a [*a]\n").find("f.yaml: a"), std::string::npos);
}

TEST(YamlDocument, NonUtf8SeveralDocumentsAndNonMappingsAreRefused) {
  EXPECT_EQ(first_error("aorta_path: /home/\xff\xfe\n"), "f.yaml: is not UTF-8 text (save it as UTF-8)");
  // A NUL, which yaml-cpp reads as an escape (fuzz_cvs_yaml), and other C0 controls.
  EXPECT_EQ(first_error(std::string("a: 1\nb\x02\0c: 1\n", 13)),
            "f.yaml: holds the control character 0x02 at line 2, which YAML does not allow");
  EXPECT_EQ(first_error(std::string("a: x\0y\n", 7)),
            "f.yaml: holds the control character 0x00 at line 1, which YAML does not allow");
  EXPECT_EQ(first_error("a: 1\n---\nb: 2\n"), "f.yaml: holds more than one YAML document; a config is one");
  EXPECT_EQ(first_error("- a\n- b\n"), "f.yaml: must hold a YAML mapping (key: value lines) at the top level");
  EXPECT_NE(first_error("a: [1, 2\n").find("is not valid YAML: line"), std::string::npos);
  EXPECT_NE(first_error("a: .inf\n").find("a: holds .inf, which JSON cannot hold"), std::string::npos);
  EXPECT_NE(first_error("a: 1:30\n").find("base-60"), std::string::npos);
}

// yaml-cpp's LoadAll makes empty documents without end on a stray ',' (fuzz_cvs_yaml's
// first find: 1.5 GB in 5 s); one document is loaded and the rest only counted.
TEST(YamlDocument, AStrayCommaIsAnErrorNotEndlessDocuments) {
  auto start = std::chrono::steady_clock::now();
  EXPECT_EQ(first_error(","), "f.yaml: must hold a YAML mapping (key: value lines) at the top level");
  EXPECT_EQ(first_error("a: 1\n,\n"), "f.yaml: is not valid YAML: line 2: end of map not found");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
}

TEST(YamlDocument, TooManyMembersAreRefused) {
  std::string text;
  for (int i = 0; i <= 10000; ++i) text += "k" + std::to_string(i) + ": 1\n";
  EXPECT_EQ(first_error(text), "f.yaml: has more than 10000 members (line 1)");
}

TEST(YamlDocument, HugeFilesDevicesAndFoldersAreNotRead) {
  aorta::testing::TempDir dir;
  ConfigErrors errors("f");
  EXPECT_FALSE(read_yaml_file(dir.write("big.yaml", "a: " + std::string(2 << 20, 'x') + "\n"), errors));
  EXPECT_FALSE(read_yaml_file("/dev/zero", errors));
  EXPECT_FALSE(read_yaml_file(dir.path(), errors));
  EXPECT_FALSE(read_yaml_file(dir.path() / "missing.yaml", errors));
  ASSERT_EQ(errors.list().size(), 4u);
  EXPECT_NE(errors.list()[0].message.find("is larger than 1 MiB"), std::string::npos);
  EXPECT_NE(errors.list()[1].message.find("is not a regular file"), std::string::npos);
  EXPECT_NE(errors.list()[2].message.find("is not a regular file"), std::string::npos);
  EXPECT_NE(errors.list()[3].message.find("cannot be read"), std::string::npos);
}

}  // namespace
}  // namespace aorta::config
