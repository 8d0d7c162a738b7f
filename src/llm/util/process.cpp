#include "llm/util/process.h"

#include <fcntl.h>
#include <spawn.h>
#include <unistd.h>
#include <sys/wait.h>

#include <cerrno>

#include <fmt/format.h>

#include "llm/util/error.h"
#include "llm/util/files.h"
#include "llm/util/utf8.h"

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

std::string run_script_into(std::string_view script, const std::vector<std::string>& args,
                            const std::filesystem::path& out) {
  try {
    const TempFolder folder("libtorch-llm-plot");
    const auto drawn = folder / ("drawn" + out.extension().string());  // the type by its extension
    std::vector<std::string> argv = {python3(), script_file(script).string()};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back(drawn.string());
    if (run_process(argv, folder / "stderr") != 0) {
      std::error_code ignored;
      const auto said = std::filesystem::exists(folder / "stderr", ignored) ? read_file(folder / "stderr") : "";
      const auto end = said.find_last_not_of(" \n\r\t");
      if (end == std::string::npos) return fmt::format("scripts/{} needs python3 with matplotlib", script);
      const auto newline = said.rfind('\n', end);
      const auto start = newline == std::string::npos ? 0 : newline + 1;
      return shortened(std::string_view(said).substr(start, end + 1 - start), 300);
    }
    write_file_atomic(out, read_file(drawn));
    return "";
  } catch (const Error& e) {
    return e.what();
  }
}

}  // namespace llm
