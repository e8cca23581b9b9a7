#include "output_path.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace taskbench {
namespace {

// The directory a new file at `path` would be created in.
std::string directory_of(const std::string& path) {
  const size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string system_error(const char* what) { return std::string(what) + ": " + std::strerror(errno); }

}  // namespace

std::string output_path_problem(const std::string& path) {
  if (path.empty()) return "an empty file name";
  if (path.back() == '/') return "it names a directory";
  struct stat st;
  if (stat(path.c_str(), &st) == 0) {
    if (S_ISDIR(st.st_mode)) return "it is a directory";
    // access() checks the real user, which is who writes the file at the end of the run.
    if (access(path.c_str(), W_OK) != 0) return system_error("it cannot be written");
    return "";
  }
  if (errno != ENOENT) return system_error("it cannot be reached");
  const std::string dir = directory_of(path);
  if (stat(dir.c_str(), &st) != 0) return system_error("its directory cannot be reached");
  if (!S_ISDIR(st.st_mode)) return "its directory is not a directory";
  if (access(dir.c_str(), W_OK | X_OK) != 0) return system_error("its directory is not writable");
  return "";
}

bool same_output_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code error_a, error_b;
  const auto path_a = std::filesystem::weakly_canonical(std::filesystem::absolute(a, error_a), error_a);
  const auto path_b = std::filesystem::weakly_canonical(std::filesystem::absolute(b, error_b), error_b);
  return !error_a && !error_b && path_a == path_b;
}

}  // namespace taskbench
