// patchwitness: the user's program's main (cpp_user_program.py): each case in a child process,
// its output in a file of its own. The child is as a user's program starts: no timer armed (the
// parent times it), a standard output nothing was written through (the parent writes its
// report with write(2), never through stdout's FILE) (red team round 35 keyed a fix on an armed
// alarm and on stdout's FILE being in put mode, each what this harness was and a user's program
// is not). Addresses stay fixed from run to run, which a user's are not: without it a body whose
// moved literal reads out of bounds reads other bytes under each tree, and an honest patch
// differs from its reference by chance. Asking the process's personality is a read the grader
// flags (cpp_reads.py).
#include <fcntl.h>
#include <signal.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>
static void PWNS_write_all(const char* data, size_t size) {
  while (size > 0) {
    ssize_t n = write(1, data, size);
    if (n <= 0) return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}
// The case's status, or -1 once PWSECONDS have passed (the case is killed then). The parent
// looks again after 20 microseconds, then twice as long each time up to 5 ms: most cases end
// in well under a millisecond, and a fixed 5 ms step made a program of 200 cases last a second.
static int PWNS_wait(pid_t pid, int* status) {
  const long limit = PWSECONDS * 1000L * 1000L * 1000L;
  long step = 20 * 1000L;
  for (long waited = 0; waited < limit; waited += step) {
    pid_t done = waitpid(pid, status, WNOHANG);
    if (done == pid) return 0;
    if (done < 0) return 0;
    struct timespec pause = {0, step};
    nanosleep(&pause, nullptr);
    if (step < 5 * 1000L * 1000L) step *= 2;
  }
  kill(pid, SIGKILL);
  waitpid(pid, status, 0);
  return -1;
}
int main(int argc, char** argv) {
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
    pid_t pid = fork();
    if (pid < 0) return 2;
    if (pid == 0) {
      dup2(out_fd, 1);
      int nothing = open("/dev/null", O_WRONLY);
      if (nothing >= 0) dup2(nothing, 2);
      close(out_fd);
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
    const bool timed_out = PWNS_wait(pid, &status) < 0;
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
    int code = timed_out ? -1
             : WIFEXITED(status) ? WEXITSTATUS(status)
             : WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 2;
    const std::string head =
        std::to_string(i) + " " + std::to_string(code) + " " + std::to_string(out.size()) + "\n";
    PWNS_write_all(head.data(), head.size());
    PWNS_write_all(out.data(), out.size());
    PWNS_write_all("\n", 1);
  }
  (void)argc;
  (void)argv;
  return 0;
}
