// One edge of a Realm Subgraph definition, from an operation's completion to another's start:
// what both of the realm binary's Subgraph designs (shards.cc, driver.cc) wire their tasks with.
#pragma once

#include <realm/subgraph.h>

namespace taskbench_realm {

inline Realm::SubgraphDefinition::Dependency subgraph_edge(Realm::SubgraphDefinition::OpKind from, long src,
                                                          Realm::SubgraphDefinition::OpKind to, long tgt) {
  Realm::SubgraphDefinition::Dependency d;
  d.src_op_kind = from;
  d.src_op_index = static_cast<unsigned>(src);
  d.src_op_port = 0;
  d.tgt_op_kind = to;
  d.tgt_op_index = static_cast<unsigned>(tgt);
  d.tgt_op_port = 0;
  return d;
}

}  // namespace taskbench_realm
