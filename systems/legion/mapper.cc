#include "mapper.h"

#include <legion.h>
#include <mappers/default_mapper.h>

#include <set>
#include <vector>

namespace taskbench_legion {
namespace {

using Legion::Machine;
using Legion::Processor;
using Legion::Mapping::DefaultMapper;
using Legion::Mapping::MapperContext;

class PinnedMapper : public DefaultMapper {
 public:
  PinnedMapper(Legion::Mapping::MapperRuntime* rt, Machine machine, Processor local)
      : DefaultMapper(rt, machine, local, "taskbench_pinned") {}

  // The default offers every local CPU of the slice's kind, so an idle CPU takes any point;
  // the paper's port keeps a point on its slice's processor, so a column stays on one CPU.
  void default_policy_select_target_processors(MapperContext, const Legion::Task& task,
                                               std::vector<Processor>& target_procs) override {
    target_procs.push_back(task.target_proc);
  }
};

void replace_mappers(Machine machine, Legion::Runtime* runtime, const std::set<Processor>& local_procs) {
  for (Processor p : local_procs)
    runtime->replace_default_mapper(new PinnedMapper(runtime->get_mapper_runtime(), machine, p), p);
}

}  // namespace

void register_pinned_mapper() { Legion::Runtime::add_registration_callback(replace_mappers); }

}  // namespace taskbench_legion
