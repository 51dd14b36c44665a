// The codec suite's loops, written once for every library, over the narrow interface
// below. A library file defines, per case (kBatch: `logs`, else `log`), a class `L`
// holding its native forms and output buffers, constructed from the cell's Variant:
//
//   static constexpr bool kBuilds    it has populate and serialize
//   static constexpr bool kAccess    it has access (a zero-copy view)
//   void populate(const Records&)    the records into its native form (kept in L)
//   Bytes serialize()                the native form to bytes, in its output buffer (reused
//                                    or fresh); valid until the next call
//   uint64_t deserialize(Bytes)      bytes to the complete native form (kept in L), owned
//                                    or borrowed strings; returns its fold; throws if the
//                                    bytes are corrupt
//   uint64_t access(Bytes)           the fold read through the library's view
//   Records populated()              the last populated native form as plain records
//   Records deserialized()           the last deserialized native form as plain records
//   static std::string encode(const Records&, bool batch)
//                                    only without kBuilds: the bytes it reads
//
// The input Bytes are 8-byte aligned and padded (Input). Every call is static (CellOf is
// instantiated per library and case in the library's file); CodecCell's one virtual call
// runs a whole sample.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "../common.h"
#include "codec.h"

namespace wb::codec {

[[noreturn, gnu::cold, gnu::noinline]] inline void wrongValue(const char* what, uint64_t want,
                                                              uint64_t got) {
  fail(std::string(what) + ": expected " + std::to_string(static_cast<int64_t>(want)) +
       ", got " + std::to_string(static_cast<int64_t>(got)));
}

template <typename L>
class CellOf final : public CodecCell {
 public:
  CellOf(const Case& c, const Variant& v) : case_(c), lib_(v) {
    if constexpr (L::kBuilds) {
      lib_.populate(c.records);
      input_ = Input(lib_.serialize());
    } else {
      std::string bytes = L::encode(c.records, c.batch);
      input_ = Input({reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()});
    }
  }

  uint64_t run(Op op, uint64_t iters) override {
    switch (op) {
      case Op::populate: return populate(iters);
      case Op::serialize: return serialize(iters);
      case Op::deserialize: return deserialize(iters);
      case Op::access: return access(iters);
    }
    return 0;
  }

  void check(Op op) override {
    std::string d;
    if (op == Op::populate) {
      if constexpr (L::kBuilds) d = difference(case_.records, lib_.populated());
    } else if (op == Op::serialize) {
      // The last bytes written are the first iteration's, and the library reads them back.
      if (!(last_ == input_.bytes())) fail(std::string("serialize: the bytes changed"));
      d = difference(case_.records, decode(last_));
    } else if (op == Op::deserialize) {
      d = difference(case_.records, lib_.deserialized());
    }
    if (!d.empty()) fail(std::string(opName(op)) + ": " + d);
  }

  Bytes encoding() const override { return input_.bytes(); }

  Records decode(Bytes bytes) override {
    Input copy(bytes);  // aligned and padded, wherever the bytes come from
    lib_.deserialize(copy.bytes());
    return lib_.deserialized();
  }

  uint64_t accessOf(Bytes bytes) override {
    if constexpr (L::kAccess) {
      Input copy(bytes);
      return lib_.access(copy.bytes());
    } else {
      fail("this library has no access");
    }
  }

 private:
  uint64_t populate(uint64_t iters) {
    if constexpr (L::kBuilds) {
      for (; iters > 0; --iters) lib_.populate(case_.records);
    } else {
      fail("this library has no populate");
    }
    return 0;
  }

  uint64_t serialize(uint64_t iters) {
    uint64_t sum = 0;
    if constexpr (L::kBuilds) {
      const size_t size = input_.bytes().size;
      for (; iters > 0; --iters) {
        last_ = lib_.serialize();
        if (last_.size != size) wrongValue("serialize: size", size, last_.size);
        sum += last_.size;
      }
    } else {
      fail("this library has no serialize");
    }
    return sum;
  }

  uint64_t deserialize(uint64_t iters) {
    const Bytes in = input_.bytes();
    uint64_t sum = 0;
    for (; iters > 0; --iters) {
      uint64_t f = lib_.deserialize(in);
      if (f != case_.fold) wrongValue("deserialize: fold", case_.fold, f);
      sum += f;
    }
    return sum;
  }

  uint64_t access(uint64_t iters) {
    uint64_t sum = 0;
    if constexpr (L::kAccess) {
      const Bytes in = input_.bytes();
      for (; iters > 0; --iters) {
        uint64_t f = lib_.access(in);
        if (f != case_.fold) wrongValue("access: fold", case_.fold, f);
        sum += f;
      }
    } else {
      fail("this library has no access");
    }
    return sum;
  }

  const Case& case_;
  L lib_;
  Input input_;
  Bytes last_;  // the last bytes serialize wrote
};

// A library's factory: the cell of L<true> (`logs`) or L<false> (`log`).
template <template <bool> class L>
std::unique_ptr<CodecCell> makeCell(const Case& c, const Variant& v) {
  if (c.batch) return std::make_unique<CellOf<L<true>>>(c, v);
  return std::make_unique<CellOf<L<false>>>(c, v);
}

}  // namespace wb::codec
