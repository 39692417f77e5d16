#include "watch/run_command.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fmt/format.h>

#include <array>
#include <cerrno>
#include <cstring>

extern char** environ;

namespace vramscope::watch {

namespace {

constexpr std::size_t output_limit = 16 << 20;

struct pipe_pair {
  int fd[2] = {-1, -1};
  ~pipe_pair() {
    for (int f : fd)
      if (f >= 0) ::close(f);
  }
};

// Reads what is ready on `fd` into `out`; returns false at end of file.
bool drain(int& fd, std::string& out) {
  char buffer[65536];
  const ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    const auto room = output_limit - std::min(output_limit, out.size());
    out.append(buffer, std::min(room, static_cast<std::size_t>(n)));
    return true;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return true;
  ::close(fd);
  fd = -1;
  return false;
}

int exit_code_of(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

result<command_output> run_command(const std::vector<std::string>& argv,
                                   std::chrono::milliseconds timeout) {
  VRAMSCOPE_EXPECTS(!argv.empty(), "run_command needs a program");
  pipe_pair out_pipe, err_pipe;
  if (::pipe2(out_pipe.fd, O_CLOEXEC) != 0 || ::pipe2(err_pipe.fd, O_CLOEXEC) != 0)
    return error_at(argv[0], fmt::format("cannot create a pipe: {}", std::strerror(errno)));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out_pipe.fd[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err_pipe.fd[1], 2);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  pid_t pid = 0;
  const int rc = ::posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0)
    return error_at(argv[0],
                    rc == ENOENT ? std::string("not found") : std::string(std::strerror(rc)));
  ::close(out_pipe.fd[1]), out_pipe.fd[1] = -1;
  ::close(err_pipe.fd[1]), err_pipe.fd[1] = -1;

  command_output result;
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (out_pipe.fd[0] >= 0 || err_pipe.fd[0] >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      result.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    std::array<pollfd, 2> fds{pollfd{out_pipe.fd[0], POLLIN, 0}, pollfd{err_pipe.fd[0], POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) < 0 && errno != EINTR) break;
    if (out_pipe.fd[0] >= 0 && fds[0].revents) drain(out_pipe.fd[0], result.out);
    if (err_pipe.fd[0] >= 0 && fds[1].revents) drain(err_pipe.fd[0], result.err);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = exit_code_of(status);
  return result;
}

}  // namespace vramscope::watch
