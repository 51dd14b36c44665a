# wirebench rpc case "catrank" (strings-heavy). Request and response are SearchResultList.
@0xcd8a004f6d290559;

using Cxx = import "/capnp/c++.capnp";
$Cxx.namespace("wirebench::capnproto::catrank");

struct SearchResultList {
  results @0 :List(SearchResult);
}

struct SearchResult {
  url @0 :Text;
  score @1 :Float64;
  snippet @2 :Text;
}
