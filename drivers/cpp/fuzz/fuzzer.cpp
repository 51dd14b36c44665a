// wirebench-fuzz: the libFuzzer executable of every target (targets.h, README.md),
//   wirebench-fuzz --target=NAME [libFuzzer flags] [CORPUS_DIR... | FILE...]
// libFuzzer ignores flags that start with "--", so --target reaches only
// LLVMFuzzerInitialize (and is passed on to the processes libFuzzer starts: -merge, -fork).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "targets.h"

namespace {
const wb::fuzz::Target* target = nullptr;
}

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  const std::string flag = "--target=";
  std::string name;
  for (int i = 1; i < *argc; ++i) {
    std::string arg = (*argv)[i];
    if (arg.rfind(flag, 0) == 0) name = arg.substr(flag.size());
  }
  target = wb::fuzz::findTarget(name);
  if (target == nullptr) {
    std::string names;
    for (const wb::fuzz::Target& t : wb::fuzz::targets()) {
      names += (names.empty() ? "" : ", ") + t.name;
    }
    std::fprintf(stderr, "wirebench-fuzz: %s (one of: %s)\n",
                 name.empty() ? "missing --target=NAME" : ("unknown target " + name).c_str(),
                 names.c_str());
    std::exit(2);
  }
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  (void)wb::fuzz::fuzzOne(*target, data, size);
  return 0;
}
