# wirebench codec case "logs": a batch of the log records of log.capnp (docs/workloads.md,
# codec / logs).
@0x8bd64b784133e72f;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("wirebench::capnproto::codec");

using Log = import "log.capnp".Log;

struct Logs {
  logs @0 :List(Log);
}
