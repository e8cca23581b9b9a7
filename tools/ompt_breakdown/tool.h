// State shared by the tool's callbacks (callbacks.cc) and its report (report.cc).
#pragma once

#include "ledger.h"

namespace ompt_breakdown {

extern Regions g_regions;
extern Ledgers g_ledgers;

}  // namespace ompt_breakdown
