// The registry of suites, in the order of `list` and `info`. Adding a suite is one folder
// (src/<suite>/, declaring its Suite) and one line here. A build has the suites of CMake's
// WB_SUITES, each defining WB_SUITE_<NAME> for this file.

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
namespace readbytes {
const Suite& suite();  // src/readbytes/suite.cpp
}

const std::vector<const Suite*>& suites() {
  static const std::vector<const Suite*> all = {
#ifdef WB_SUITE_RPC
      &rpc::suite(),
#endif
#ifdef WB_SUITE_LIMIT
      &limit::suite(),
#endif
#ifdef WB_SUITE_CODEC
      &codec::suite(),
#endif
#ifdef WB_SUITE_QUEUE
      &queue::suite(),
#endif
#ifdef WB_SUITE_READBYTES
      &readbytes::suite(),
#endif
  };
  return all;
}

}  // namespace wb
