// The frame header's bounds, request decoding and the secret comparison.
#include "agent/protocol.h"

#include <gtest/gtest.h>

namespace aorta::agent {
namespace {

TEST(AgentProtocol, HeaderRoundTripsAndIsBigEndian) {
  auto bytes = encode_header({FrameType::kData, 0x0102});
  EXPECT_EQ(std::string(bytes.data(), 8), std::string("\x03\0\0\0\0\0\x01\x02", 8));
  auto back = decode_header(bytes);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(back->type, FrameType::kData);
  EXPECT_EQ(back->length, 0x0102u);
}

TEST(AgentProtocol, LengthsPastEachTypesBoundAreRefused) {
  EXPECT_TRUE(decode_header(encode_header({FrameType::kRequest, 1u << 20})).ok());
  EXPECT_FALSE(decode_header(encode_header({FrameType::kRequest, (1u << 20) + 1})).ok());
  EXPECT_TRUE(decode_header(encode_header({FrameType::kData, 65536})).ok());
  auto data = decode_header(encode_header({FrameType::kData, 65537}));
  ASSERT_FALSE(data.ok());
  EXPECT_EQ(data.error().message, "frame of 65537 bytes, over the 65536-byte limit");
  std::array<char, kHeaderSize> bad{9, 0, 0, 0, 0, 0, 0, 1};
  EXPECT_EQ(decode_header(bad).error().message, "unknown frame type 9");
  std::array<char, kHeaderSize> padded{1, 0, 1, 0, 0, 0, 0, 1};
  EXPECT_FALSE(decode_header(padded).ok());
}

TEST(AgentProtocol, RequestsRoundTripAndBadOnesAreNamed) {
  Request run{.op = Op::kRun, .token = "t", .job = "1.0", .command = "ls", .timeout_s = 30};
  auto back = decode_request(encode_request(run));
  ASSERT_TRUE(back.ok()) << back.error().message;
  EXPECT_EQ(back->op, Op::kRun);
  EXPECT_EQ(back->command, "ls");
  EXPECT_EQ(back->timeout_s, 30);
  EXPECT_EQ(decode_request("[1]").error().message, "a request that is not a JSON object");
  EXPECT_EQ(decode_request(R"({"op":"rm","token":"t","job":"j"})").error().message, "unknown op \"rm\"");
  EXPECT_EQ(decode_request(R"({"op":"run","job":"j"})").error().message, "no \"token\"");
  EXPECT_EQ(decode_request(R"({"op":"run","token":1,"job":"j"})").error().message, "\"token\" is not a string");
  EXPECT_EQ(decode_request(R"({"op":"run","token":"t","job":"j","timeout":5})").error().message,
            "run without a \"command\"");
  EXPECT_FALSE(decode_request(R"({"op":"run","token":"t","job":"j","command":"x","timeout":-1})").ok());
  EXPECT_FALSE(decode_request(R"({"op":"run","token":"t","job":"j","command":"x","timeout":1e9})").ok());
  EXPECT_EQ(decode_request(R"({"op":"download","token":"t","job":"j"})").error().message,
            "download without a \"path\"");
}

TEST(AgentProtocol, SecretsCompareWhole) {
  const std::string secret(40, 'a');
  EXPECT_TRUE(same_secret(secret, secret));
  EXPECT_FALSE(same_secret(secret, std::string(39, 'a') + "b"));  // last byte
  EXPECT_FALSE(same_secret(secret, "b" + std::string(39, 'a')));  // first byte
  EXPECT_FALSE(same_secret(secret, std::string(39, 'a')));        // a prefix
  EXPECT_FALSE(same_secret(secret, secret + '\0'));               // padded with a zero byte
  EXPECT_FALSE(same_secret("", secret));
}

}  // namespace
}  // namespace aorta::agent
