// The codec suite (docs/protocol.md, suite codec): one library encoding the records of
// docs/workloads.md (codec), operation by operation.
//
//   records.{h,cpp}  the plain records, the `logs` generator, the fold, the canonical JSON
//   codec.h          the suite's types: a variant, bytes, a case, the type-erased cell, the
//                    library registry entry
//   loops.h          the narrow interface a library implements, and the loops written once
//                    over it: each operation's iterations and the checks after a sample
//   registry.cpp     the suite's registry entry: cases, parameters, libraries (one line each)
//   suite.cpp        its run: each measured operation timed, then its allocations counted
//   golden.cpp       `golden write|check DIR` for the codec files (<case>.<format>)
//   <lib>.cpp        one file per library (registry.cpp lists them), the library's work
//                    only
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "../json.h"
#include "records.h"

namespace wb {
struct Suite;
}

namespace wb::codec {

enum class Op { populate, serialize, deserialize, access };
const char* opName(Op op);

// The variant a cell measures: its parameters buffer, strings, validation and packing.
struct Variant {
  bool reused = true;     // buffer reused (else fresh)
  bool borrowed = false;  // strings borrowed (else owned)
  bool checked = true;    // validation validated or lazy (else unchecked)
  bool packed = false;    // packing packed: Cap'n Proto's packed encoding (else unpacked)
  bool compact = false;   // packing compact: Thrift's compact protocol (else its binary one)
};

// Bytes a library reads or has written; valid as long as their owner.
struct Bytes {
  const uint8_t* data = nullptr;
  size_t size = 0;
  bool operator==(const Bytes& o) const {
    return size == o.size && (size == 0 || std::memcmp(data, o.data, size) == 0);
  }
};

// A copy of an encoding that every library can decode in place: 8-byte aligned (capnp
// reads words) and followed by kPadding zero bytes (simdjson reads past the end).
class Input {
 public:
  static constexpr size_t kPadding = 64;
  Input() = default;
  explicit Input(Bytes b)
      : words_(new uint64_t[(b.size + kPadding + 7) / 8]()), size_(b.size) {
    if (b.size != 0) std::memcpy(words_.get(), b.data, b.size);
  }
  Bytes bytes() const { return {reinterpret_cast<const uint8_t*>(words_.get()), size_}; }

 private:
  std::unique_ptr<uint64_t[]> words_;
  size_t size_ = 0;
};

// An output byte buffer: `reused` keeps its memory and grows it when needed; `fresh`
// allocates anew for every message (and frees the previous one).
class OutBuffer {
 public:
  explicit OutBuffer(bool reused) : reused_(reused) {}
  // Room for n bytes, uninitialized; the message is then bytes().
  uint8_t* prepare(size_t n) {
    if (!reused_ || n > capacity_) {
      data_.reset(new uint8_t[n]);
      capacity_ = n;
    }
    size_ = n;
    return data_.get();
  }
  Bytes bytes() const { return {data_.get(), size_}; }

 private:
  bool reused_;
  std::unique_ptr<uint8_t[]> data_;
  size_t capacity_ = 0, size_ = 0;
};

// A case as every library sees it: its records and whether it is the batch (`logs`, the
// message Logs) or one record (`log`, the message Log).
struct Case {
  std::string name;
  Records records;
  bool batch = false;
  uint64_t fold = 0;
};
const Case& findCase(const std::string& name);  // the records are built once per process

// One codec cell (case x lib x variant), type-erased once by CellOf<L> (loops.h): each
// virtual call runs a whole sample's loop.
class CodecCell {
 public:
  virtual ~CodecCell() = default;
  // `iters` iterations of `op`, returning its evidence: the sum of the sizes written
  // (serialize), of the folds (deserialize, access), 0 (populate).
  virtual uint64_t run(Op op, uint64_t iters) = 0;
  // Untimed, after a sample of `op`: its last result against the records; Failure if not.
  virtual void check(Op op) = 0;
  // The encoding the cell measures and reads from (its `size`, its --out-dir file).
  virtual Bytes encoding() const = 0;
  // Decodes any bytes with the library's deserialize (golden check); throws if corrupt.
  virtual Records decode(Bytes bytes) = 0;
  // Folds any bytes through the library's access (its zero-copy view, with the cell's
  // validation; the fuzz targets, drivers/cpp/fuzz); throws if corrupt or without access.
  virtual uint64_t accessOf(Bytes bytes) = 0;
};

using CodecFactory = std::unique_ptr<CodecCell>(const Case& c, const Variant& v);

// One library of the codec suite (registry.cpp). Each parameter's values are the variants
// it offers, the default (its first cell) first.
struct CodecLib {
  std::string name;
  std::string format;   // json, msgpack, protobuf, capnp, flatbuffers, null, cbor, ...
  std::vector<Op> ops;  // the operations it has, in order
  std::vector<std::string> buffers, strings, validations;
  CodecFactory* make;
  Pairs versions;  // the extra provenance of its results

  bool has(Op op) const;
  bool serializes() const { return has(Op::serialize); }
  // The values of --packing, the default first: packing is the Cap'n Proto format's
  // (unpacked, packed) and Thrift's (unpacked: its binary protocol, compact: its compact
  // protocol), so every capnp and thrift library has both and every other format only its
  // one encoding.
  std::vector<std::string> packings() const;
};

const std::vector<std::string>& cases();        // the record, then the size axis
const std::vector<std::string>& goldenCases();  // the golden files': log and logs
const std::vector<CodecLib>& libs();
const CodecLib* findLib(const std::string& name);
Variant variantOf(const std::string& buffer, const std::string& strings,
                  const std::string& validation, const std::string& packing = "unpacked");
const Suite& suite();

}  // namespace wb::codec
