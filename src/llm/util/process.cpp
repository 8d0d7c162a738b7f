#include "llm/util/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cerrno>

extern char** environ;

namespace llm {

namespace {

int spawn_and_wait(const std::vector<std::string>& argv, const posix_spawn_file_actions_t* actions) {
  if (argv.empty()) return -1;
  std::vector<char*> args;
  for (const auto& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawnp(&pid, args[0], actions, nullptr, args.data(), environ) != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

int run_process(const std::vector<std::string>& argv) { return spawn_and_wait(argv, nullptr); }

std::string python3() { return std::filesystem::exists("/usr/bin/python3") ? "/usr/bin/python3" : "python3"; }

int run_process(const std::vector<std::string>& argv, const std::filesystem::path& stderr_file) {
  posix_spawn_file_actions_t actions;
  if (::posix_spawn_file_actions_init(&actions) != 0) return -1;
  int status = -1;
  if (::posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                         0600) == 0) {
    status = spawn_and_wait(argv, &actions);
  }
  ::posix_spawn_file_actions_destroy(&actions);
  return status;
}

}  // namespace llm
