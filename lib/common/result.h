// Expected failures travel as values (house style 5.3): a Result<T> holds either a
// value or an Error whose code group tells the caller what to do next.
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace aorta {

enum class ErrorCode {
  kInvalidInput,   // bad config, bad trace, bad argument: fix the input
  kNotFound,       // a file, host or artifact is missing
  kTimeout,        // a command or phase ran past its limit: retryable
  kCommandFailed,  // a command ran and returned non-zero
  kIo,             // local disk or transfer failure
  kUnsupported,    // a feature the input asks for is not available
};

// Retryable errors may succeed on a second attempt; the rest need a change first.
inline bool is_retryable(ErrorCode code) { return code == ErrorCode::kTimeout; }

struct Error {
  ErrorCode code = ErrorCode::kInvalidInput;
  std::string message;
  std::string context;  // host, file or rank the error is about; empty if none

  // "context: message", the form every user-facing error takes.
  std::string describe() const { return context.empty() ? message : context + ": " + message; }
};

template <typename T>
class Result {
 public:
  Result(T value) : state_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : state_(std::move(error)) {}  // NOLINT: implicit by design

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }
  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const T& operator*() const& { return value(); }
  T& operator*() & { return value(); }
  const T* operator->() const { return &value(); }
  T* operator->() { return &value(); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() { return Unit{}; }

}  // namespace aorta
