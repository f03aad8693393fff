// linkparse's start in a root without /proc (a chroot holding only the binary, a minimal container).
//
// The Swift runtime's backtracer starts with the process (on Linux it is on by default) and looks for its helper,
// swift-backtrace, beside the runtime. A statically linked executable has no shared runtime to ask dladdr(3)
// about, so the runtime reads /proc/self/exe instead, and where /proc is not mounted it stops the process with
// "Unable to obtain Swift runtime path" before main runs. A static linkparse never has swift-backtrace beside it
// anyway, so where /proc/self/exe cannot be read and SWIFT_BACKTRACE is not set, this turns the backtracer off
// (SWIFT_BACKTRACE=enable=no) before the runtime reads its environment. Priority 101 runs it before every
// constructor without a priority (the runtime's among them). Everywhere else it changes nothing.

#if defined(__linux__)
#include <stdlib.h>
#include <unistd.h>

__attribute__((constructor(101))) static void linkparse_startup_without_proc(void) {
  char path[2];
  if (getenv("SWIFT_BACKTRACE") != NULL) return;
  if (readlink("/proc/self/exe", path, sizeof path) >= 0) return;
  setenv("SWIFT_BACKTRACE", "enable=no", 0);
}
#endif
