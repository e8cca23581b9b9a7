// Up-front check of the files a run writes at its end (-json, -trace): a run that computes for
// an hour and only then finds that it cannot write its report has wasted the hour, so paths
// that cannot be written are rejected while parsing, with exit status 2.
#pragma once

#include <string>

namespace taskbench {

// Empty if `path` looks writable (an existing writable file, or a new file in an existing
// writable directory), else why not, without the path, e.g. "it is a directory". Creates nothing. Being
// root, or a file system that fails later (a full disk), can still make the final write fail;
// the report then exits with status 2 naming the flag.
std::string output_path_problem(const std::string& path);

// Whether two output paths name the same file (after resolving "." and "..", and symbolic
// links of the parts that exist): -json and -trace there would overwrite each other.
bool same_output_file(const std::string& a, const std::string& b);

}  // namespace taskbench
