// Golden messages (docs/protocol.md, `golden write` and `golden check`): files of requests
// and responses in each pipe wire format, so that every language can prove it reads every
// other language's bytes, and a library upgrade that changes the bytes is caught.
#pragma once

#include <cstdint>
#include <string>

#include "../registry.h"

namespace wb::rpc {

// Requests (and so responses) per golden file: the first ones from a fresh generator.
inline constexpr uint64_t kGoldenMessages = 5;

// Writes DIR/<case>.<lib>.<compression>.{requests,responses} for every rpc case, library
// and compression this driver supports, creating DIR if needed; reports each file as it
// is written. Throws Failure on an I/O error or a failed request.
void goldenWrite(const std::string& dir, const GoldenReport& report);

// Checks every DIR/<case>.<lib>.<compression>.requests file and its .responses file (in
// name order), reporting each file checked or skipped (unsupported case, lib or
// compression). Throws Failure naming the file and the message at the first corrupt
// message, wrong answer or wrong message count, or if no file could be checked.
void goldenCheck(const std::string& dir, const GoldenReport& report);

}  // namespace wb::rpc
