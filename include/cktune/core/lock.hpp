#pragma once
// One writer per output: an advisory lock held for a whole run, so that two cktune processes never write
// the same table (or its journal) at once. docs/reliability.md#one-writer-per-output.
//
// The lock is flock(2) on the file `TARGET.lock` beside the target. The file holds the holder's pid and
// command line, so a refused run can say who holds it. The kernel drops the lock when the holder exits
// or crashes (kill -9 included); a stale TARGET.lock left by a crash is harmless and is taken over by the
// next run. A clean release removes the file.
#include <string>

namespace cktune {

class OutputLock {
 public:
  // Takes the lock for `target` (a file path; its folder is created when missing). Never waits: when
  // another process holds it, throws cktune::Error naming the lock file and the holder (pid, command
  // line, start time). Also throws when the lock file cannot be created.
  explicit OutputLock(const std::string& target);
  ~OutputLock();  // release()
  OutputLock(OutputLock&& other) noexcept;
  OutputLock& operator=(OutputLock&& other) noexcept;
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

  // Removes the lock file and drops the lock; idempotent.
  void release() noexcept;
  bool held() const { return fd_ >= 0; }
  const std::string& lock_path() const { return lock_path_; }

 private:
  std::string lock_path_;
  int fd_ = -1;
};

// The lock file used for `target`: TARGET + ".lock".
std::string lock_path_for(const std::string& target);

}  // namespace cktune
