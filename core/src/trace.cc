#include "trace.h"

#include <cstdio>
#include <limits>

#include "json.h"
#include "thread_state.h"

namespace taskbench {

bool write_trace(const std::string& path, int rank, std::string* error) {
  double origin = std::numeric_limits<double>::infinity();
  for_each_thread_state([&](ThreadState& s) {
    for (const TraceEvent& e : s.trace) origin = std::min(origin, e.start);
  });
  JsonWriter j;
  j.begin_object().key("displayTimeUnit").value("ns").key("traceEvents").begin_array();
  for_each_thread_state([&](ThreadState& s) {
    for (const TraceEvent& e : s.trace) {
      char name[96];
      std::snprintf(name, sizeof name, "g%ld t%ld i%ld", e.graph, e.t, e.i);
      j.begin_object()
          .field("name", name)
          .field("ph", "X")
          .field("ts", (e.start - origin) * 1e6)
          .field("dur", (e.end - e.start) * 1e6)
          .field("pid", rank)
          .field("tid", s.worker)
          .key("args").begin_object().field("graph", e.graph).field("t", e.t).field("i", e.i)
          .end_object()
          .end_object();
    }
  });
  j.end_array().end_object();
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f || std::fputs(j.str().c_str(), f) < 0 || std::fclose(f) != 0) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace taskbench
