// What every decoder of this driver accepts from bytes it did not write: one policy for all
// languages (drivers/cpp/fuzz/README.md), set here rather than left to library defaults.
#pragma once

#include <cstddef>
#include <cstdint>

namespace wb::limits {

// A frame on a pipe (a capnp message with its segment table, a protobuf message after its
// varint, a null message after its u32) is refused above this, before it is allocated: the
// largest message the workloads make is under 1 MiB, so 64 MiB is corruption or an attack.
inline constexpr uint64_t kMaxFrameBytes = uint64_t{64} << 20;

// Cap'n Proto readers: words a reader may traverse per message (64 MiB, the frame limit, so
// that pointers aliasing one object cannot amplify a message into unbounded work) ...
inline constexpr uint64_t kCapnpTraversalLimitWords = kMaxFrameBytes / 8;
// ... and pointer nesting depth (the deepest schema, eval's expression tree, is 10 deep).
inline constexpr int kCapnpNestingLimit = 64;

// protobuf parsers: message nesting depth (eval's expressions; bounds the parser's stack).
inline constexpr int kProtobufRecursionLimit = 100;

// The null format's and the JSON and MessagePack parsers' nesting depth (eval's null
// expressions; JSON and MessagePack records are 3 deep), so that recursion stays shallow.
inline constexpr int kMaxNestingDepth = 64;

}  // namespace wb::limits
