// io_bound: each iteration writes a 4 KiB block to a file and reads it back, in a temporary
// directory made for this run (one file per thread, so tasks never share a file); the
// directory and files are removed at exit.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "kernels.h"

namespace taskbench::kernels {
namespace {

struct IoDirectory {
  std::mutex lock;
  std::string path;
  std::vector<std::string> files;

  ~IoDirectory() {
    for (const std::string& f : files) unlink(f.c_str());
    if (!path.empty()) rmdir(path.c_str());
  }

  std::string new_file() {
    std::lock_guard<std::mutex> guard(lock);
    if (path.empty()) {
      const char* tmp = std::getenv("TMPDIR");
      std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/taskbench-io-XXXXXX";
      std::vector<char> buf(templ.begin(), templ.end());
      buf.push_back('\0');
      if (!mkdtemp(buf.data())) {
        std::fprintf(stderr, "taskbench: io_bound: cannot create a directory %s: %s\n",
                     templ.c_str(), std::strerror(errno));
        std::fflush(stderr);
        _exit(1);
      }
      path = buf.data();
    }
    files.push_back(path + "/thread" + std::to_string(files.size()));
    return files.back();
  }
};

IoDirectory io_directory;

struct ThreadFile {
  int fd = -1;
  ~ThreadFile() {
    if (fd >= 0) close(fd);
  }
};

[[noreturn]] void io_failure(const char* what) {
  std::fprintf(stderr, "taskbench: io_bound: %s failed: %s\n", what, std::strerror(errno));
  std::fflush(stderr);
  _exit(1);
}

}  // namespace

void io_bound(long iterations, long graph, long point) {
  thread_local ThreadFile file;
  if (file.fd < 0) {
    std::string name = io_directory.new_file();
    file.fd = open(name.c_str(), O_CREAT | O_RDWR | O_TRUNC, 0600);
    if (file.fd < 0) io_failure("open");
  }
  alignas(64) char block[kIoBlockBytes], back[kIoBlockBytes];
  for (long it = 0; it < iterations; ++it) {
    std::memset(block, static_cast<int>((graph + point + it) & 0xff), sizeof block);
    if (pwrite(file.fd, block, sizeof block, 0) != static_cast<ssize_t>(sizeof block))
      io_failure("write");
    if (pread(file.fd, back, sizeof back, 0) != static_cast<ssize_t>(sizeof back))
      io_failure("read");
    if (back[0] != block[0]) io_failure("read-back check");
  }
}

}  // namespace taskbench::kernels
