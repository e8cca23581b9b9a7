/* The hook by which a tool library loaded into a system's process (an OMPT tool named in
 * OMP_TOOL_LIBRARIES) adds a member to the system's JSON report and lines to its summary,
 * without any change to the system's source. The core looks the symbol up once, at report
 * time, in each library the variable lists that the process has loaded. */
#ifndef TASKBENCH_TOOL_REPORT_H
#define TASKBENCH_TOOL_REPORT_H

#ifdef __cplusplus
extern "C" {
#endif

#define TASKBENCH_TOOL_REPORT_SYMBOL "taskbench_tool_report"

/* Returns 1 and sets *key (a member name of system_report), *json (its value, valid JSON) and
 * *lines (text printed after the summary, possibly empty) when the tool has a report; 0 when it
 * recorded nothing. The strings belong to the tool and stay valid until its next call. */
typedef int (*taskbench_tool_report_fn)(const char** key, const char** json, const char** lines);

#ifdef __cplusplus
}
#endif

#endif
