// libFuzzer target: the codec suite's decoder of one library (WB_FUZZ_LIB), on the path
// `golden check` takes for a foreign file (the library's default cell, CodecCell::decode:
// deserialize into the plain records, then the records compared with the case's), and, for
// libraries with a zero-copy view, that view's fold (CodecCell::accessOf) with the same
// cell's validation. The first byte chooses the case (bit 0: log or logs) and the strings
// (bit 1: the library's last strings variant, borrowed where it has one); the rest is the
// encoding. Any Failure or library exception is a clean refusal; a crash, a sanitizer
// report, a hang or memory beyond libFuzzer's limits is a bug.
//
// Not fuzzed, by design: flatbuffers' `unchecked` variant (no Verifier: undefined on bytes
// it did not write). The driver only ever feeds it the bytes it serialized itself.

#include <cstddef>
#include <cstdint>
#include <exception>
#include <kj/exception.h>
#include <memory>
#include <string>

#include "codec/codec.h"
#include "common.h"

#ifndef WB_FUZZ_LIB
#error "WB_FUZZ_LIB names the codec library"
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace wb::codec;
  static const CodecLib* lib = findLib(WB_FUZZ_LIB);
  static std::unique_ptr<CodecCell> cells[2][2];  // [logs][last strings variant]
  if (lib == nullptr || size == 0) return 0;

  const bool batch = (data[0] & 1) != 0, lastStrings = (data[0] & 2) != 0;
  const Case& c = findCase(batch ? "logs" : "log");
  std::unique_ptr<CodecCell>& cell = cells[batch][lastStrings];
  if (!cell) {
    cell = lib->make(c, variantOf(lib->buffers.front(),
                                  lastStrings ? lib->strings.back() : lib->strings.front(),
                                  lib->validations.front()));
  }
  const Bytes bytes{data + 1, size - 1};
  try {
    Records got = cell->decode(bytes);
    std::string d = difference(c.records, got);  // golden check's comparison
    (void)d;
  } catch (const wb::Failure&) {
  } catch (const kj::Exception&) {
  } catch (const std::exception&) {
  }
  if (lib->has(Op::access)) {
    try {
      (void)cell->accessOf(bytes);
    } catch (const wb::Failure&) {
    } catch (const kj::Exception&) {
    } catch (const std::exception&) {
    }
  }
  return 0;
}
