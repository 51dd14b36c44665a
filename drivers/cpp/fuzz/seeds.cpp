// The fuzz targets' list and seed inputs (README.md), from the registries:
//   wirebench-fuzz-seeds --targets       one line per target: NAME<TAB>SUITE<TAB>LIB
//   wirebench-fuzz-seeds DIR [TARGET...] the seeds of every target (or those named) into
//                                        DIR/<target>/, each a selector byte, then bytes:
//  - rpc_<lib>: per case and compression, the first request of a fresh generator, the
//    first message of testdata/golden/cpp/<case>.<lib>.<compression>.requests;
//  - codec_<lib>: the `log` encoding of the format's first library that serializes (the
//    golden file testdata/golden/cpp/log.<format>, as golden write does) and a `logs`
//    message of the case's first 3 records (the golden logs files, 300-600 KB, are too
//    large to mutate quickly); none where no library serializes the format.

#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "codec/codec.h"
#include "rng.h"
#include "rpc/rpc.h"
#include "targets.h"

namespace fs = std::filesystem;

namespace {

void put(const fs::path& dir, const std::string& name, uint8_t select, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream out(dir / name, std::ios::binary | std::ios::trunc);
  out.put(static_cast<char>(select));
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw std::runtime_error("cannot write " + (dir / name).string());
}

std::string firstRequest(wb::rpc::RpcCell& cell) {
  int fd = memfd_create("wirebench-seed", 0);
  if (fd < 0) throw std::runtime_error("memfd_create failed");
  wb::resetRng();
  cell.writeRequests(fd, 1);
  off_t size = lseek(fd, 0, SEEK_END);
  std::string bytes(static_cast<size_t>(size), '\0');
  if (pread(fd, bytes.data(), bytes.size(), 0) != size) throw std::runtime_error("pread");
  close(fd);
  return bytes;
}

// The selector bytes are rpc_server.cpp's: case, then reuse (0: reuse), then compression.
void rpcSeeds(const wb::rpc::RpcLib& lib, const fs::path& dir) {
  const std::vector<std::string>& kases = wb::rpc::cases();
  for (size_t k = 0; k < kases.size(); ++k) {
    for (size_t c = 0; c < lib.compressions.size(); ++c) {
      auto cell = lib.make(kases[k], lib.compressions[c], /*reuse=*/true);
      if (!cell) continue;
      put(dir, kases[k] + "." + lib.compressions[c],
          static_cast<uint8_t>(k + 2 * kases.size() * c), firstRequest(*cell));
    }
  }
}

std::string encoding(const wb::codec::CodecLib& writer, const wb::codec::Case& c,
                     const std::string& packing) {
  auto cell = writer.make(c, wb::codec::variantOf(writer.buffers.front(),
                                                  writer.strings.front(),
                                                  writer.validations.front(), packing));
  wb::codec::Bytes b = cell->encoding();
  return std::string(reinterpret_cast<const char*>(b.data), b.size);
}

// The selector bytes are codec_decode.cpp's: bit 0 the case (logs), bit 1 the strings,
// bit 2 the library's last packing (its seeds in that encoding, where it has two).
void codecSeeds(const wb::codec::CodecLib& lib, const fs::path& dir) {
  using namespace wb::codec;
  for (const CodecLib& writer : libs()) {
    if (writer.format != lib.format || !writer.serializes()) continue;
    const Case& logs = findCase("logs");
    Case few{"logs", Records(logs.records.begin(), logs.records.begin() + 3), true, 0};
    few.fold = fold(few.records);
    const std::vector<std::string> packings = lib.packings();
    put(dir, "log." + lib.format, 0, encoding(writer, findCase("log"), packings.front()));
    put(dir, "logs3." + lib.format, 1, encoding(writer, few, packings.front()));
    if (packings.size() > 1) {
      const std::string& last = packings.back();
      put(dir, "log." + lib.format + "." + last, 4, encoding(writer, findCase("log"), last));
      put(dir, "logs3." + lib.format + "." + last, 5, encoding(writer, few, last));
    }
    return;
  }
}

}  // namespace

int main(int argc, char** argv) {
  using wb::fuzz::Target;
  if (argc == 2 && std::string(argv[1]) == "--targets") {
    for (const Target& t : wb::fuzz::targets()) {
      std::printf("%s\t%s\t%s\n", t.name.c_str(), t.suite.c_str(), t.lib.c_str());
    }
    return 0;
  }
  if (argc < 2 || argv[1][0] == '-') {
    std::fprintf(stderr, "usage: wirebench-fuzz-seeds --targets | DIR [TARGET...]\n");
    return 2;
  }
  std::vector<const Target*> chosen;
  for (int i = 2; i < argc; ++i) {
    const Target* t = wb::fuzz::findTarget(argv[i]);
    if (t == nullptr) {
      std::fprintf(stderr, "wirebench-fuzz-seeds: unknown target %s\n", argv[i]);
      return 2;
    }
    chosen.push_back(t);
  }
  if (chosen.empty()) {
    for (const Target& t : wb::fuzz::targets()) chosen.push_back(&t);
  }
  const fs::path root = argv[1];
  for (const Target* t : chosen) {
    if (t->suite == "rpc") {
      rpcSeeds(*wb::rpc::findLib(t->lib), root / t->name);
    } else {
      codecSeeds(*wb::codec::findLib(t->lib), root / t->name);
    }
  }
  return 0;
}
