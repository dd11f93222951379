// patchwitness: the user's program's main (cpp_user_program.py): each case in a child process,
// its output in a file of its own.
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <vector>
int main(int argc, char** argv) {
  // Addresses fixed from run to run: a body whose moved literal reads out of bounds reads the
  // same bytes each time, so that the reference's runs agree and the patch's can be compared.
  int persona = personality(0xffffffff);
  if (persona != -1 && !(persona & ADDR_NO_RANDOMIZE) &&
      personality(persona | ADDR_NO_RANDOMIZE) != -1) {
    execv("/proc/self/exe", argv);
  }
  void (*const cases[])() = {PWTABLE};
  const int count = PWCOUNT;
  for (int i = 0; i < count; ++i) {
    // The case's standard output is a file, as when a user sends a program's output to one: a
    // pipe is what every run of the tests' harness hands a test, and no user's program needs it.
    std::FILE* kept = std::tmpfile();
    if (kept == nullptr) return 2;
    int out_fd = fileno(kept);
    std::fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      dup2(out_fd, 1);
      int nothing = open("/dev/null", O_WRONLY);
      if (nothing >= 0) dup2(nothing, 2);
      close(out_fd);
      alarm(PWSECONDS);
      try {
        cases[i]();
      } catch (const std::exception& e) {
        PWNS::kept(false);
        PWNS::say(std::string("uncaught ") + typeid(e).name());
      } catch (...) {
        PWNS::kept(false);
        PWNS::say("uncaught something else");
      }
      std::cout.flush();
      std::fflush(stdout);
      // The case came back: the drawn code, one more if an assertion did not hold. A case that
      // ends the process itself never says it (no code under test knows the number).
      _exit(PWDONE + (PWNS::unheld() ? 1 : 0));
    }
    int status = 0;
    waitpid(pid, &status, 0);
    std::vector<char> out;
    char buffer[4096];
    lseek(out_fd, 0, SEEK_SET);
    for (;;) {
      ssize_t n = read(out_fd, buffer, sizeof buffer);
      if (n <= 0) break;
      size_t room = PWBYTES > out.size() ? PWBYTES - out.size() : 0;
      out.insert(out.end(), buffer, buffer + (static_cast<size_t>(n) < room ? n : room));
    }
    std::fclose(kept);
    int code = WIFEXITED(status) ? WEXITSTATUS(status)
             : (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM) ? -1
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 2;
    std::printf("%d %d %zu\n", i, code, out.size());
    std::fwrite(out.data(), 1, out.size(), stdout);
    std::printf("\n");
    std::fflush(stdout);
  }
  (void)argc;
  (void)argv;
  return 0;
}
