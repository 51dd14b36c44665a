// The registry of suites, in the order of `list` and `info`. Adding a suite is one folder
// (src/<suite>/, declaring its Suite) and one line here.

#include "registry.h"

namespace wb {

namespace rpc {
const Suite& suite();  // src/rpc/registry.cpp
}
namespace limit {
const Suite& suite();  // src/limit/suite.cpp
}
namespace codec {
const Suite& suite();  // src/codec/registry.cpp
}
namespace queue {
const Suite& suite();  // src/queue/suite.cpp
}

const std::vector<const Suite*>& suites() {
  static const std::vector<const Suite*> all = {
      &rpc::suite(),
      &limit::suite(),
      &codec::suite(),
      &queue::suite(),
  };
  return all;
}

}  // namespace wb
