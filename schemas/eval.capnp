# wirebench rpc case "eval" (pointer-heavy, small messages). Request Expression,
# response EvaluationResult.
@0xc0c6cf4b33e23981;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("wirebench::capnproto::eval");

enum Operation {
  add @0;
  subtract @1;
  multiply @2;
  divide @3;
  modulus @4;
}

struct Expression {
  op @0 :Operation;

  left :union {
    value @1 :Int32;
    expression @2 :Expression;
  }

  right :union {
    value @3 :Int32;
    expression @4 :Expression;
  }
}

struct EvaluationResult {
  value @0 :Int32;
}
