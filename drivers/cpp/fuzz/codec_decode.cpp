// The codec suite's fuzz code path: one library's decoder on the path `golden check` takes
// for a foreign file (the library's default cell, CodecCell::decode: deserialize into the
// plain records, then the records compared with the case's), and, for libraries with a
// zero-copy view, that view's fold (CodecCell::accessOf) with the same cell's validation.
// The first byte chooses the case (bit 0: log or logs), the strings (bit 1: the library's
// last strings variant, borrowed where it has one) and the packing (bit 2: the library's
// last packing, Cap'n Proto's packed encoding and Thrift's compact protocol where it has
// more than one); the rest is the encoding. Any
// Failure or library exception is a clean refusal; the result is whether decode refused.
//
// Not fuzzed, by design: flatbuffers' `unchecked` variant (no Verifier: undefined on bytes
// it did not write). A library's first validation is its checked one; the driver only ever
// feeds `unchecked` the bytes it serialized itself.

#include <array>
#include <exception>
#include <kj/exception.h>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "common.h"
#include "targets.h"

namespace wb::fuzz {

bool decodeCodec(const std::string& name, const uint8_t* data, size_t size) {
  using namespace wb::codec;
  // The cells, made once per library: [logs][last strings variant][last packing].
  using Cells = std::array<std::array<std::array<std::unique_ptr<CodecCell>, 2>, 2>, 2>;
  static std::map<std::string, Cells> cells;
  const CodecLib* lib = findLib(name);
  if (lib == nullptr) fail("no codec library " + name);
  if (size == 0) return true;

  const bool batch = (data[0] & 1) != 0, lastStrings = (data[0] & 2) != 0,
             lastPacking = (data[0] & 4) != 0;
  const Case& c = findCase(batch ? "logs" : "log");
  std::unique_ptr<CodecCell>& cell = cells[name][batch][lastStrings][lastPacking];
  if (!cell) {
    const std::vector<std::string> packings = lib->packings();
    cell = lib->make(c, variantOf(lib->buffers.front(),
                                  lastStrings ? lib->strings.back() : lib->strings.front(),
                                  lib->validations.front(),
                                  lastPacking ? packings.back() : packings.front()));
  }
  const Bytes bytes{data + 1, size - 1};
  bool refused = true;
  try {
    Records got = cell->decode(bytes);
    std::string d = difference(c.records, got);  // golden check's comparison
    (void)d;
    refused = false;
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
  return refused;
}

}  // namespace wb::fuzz
