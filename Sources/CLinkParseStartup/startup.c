// linkparse's start in a root without /proc (a chroot holding only the binary and its input, a minimal container).
//
// A statically linked Swift executable asks /proc for two things before and at the start of main:
// - The runtime's backtracer, which starts with the process (on Linux it is on by default), looks for its helper
//   swift-backtrace beside the runtime. With no shared runtime to ask dladdr(3) about, the runtime reads
//   /proc/self/exe, and where /proc is not mounted it stops the process: "Unable to obtain Swift runtime path".
//   Swift 6.3 looks the helper up even with SWIFT_BACKTRACE=enable=no, unless the setting names the helper. A
//   static linkparse never has swift-backtrace beside it, so where /proc/self/exe cannot be read and
//   SWIFT_BACKTRACE is not set, this sets it to "enable=no,swift-backtrace=/" (off, and a path that is never run)
//   before the runtime reads its environment. A SWIFT_BACKTRACE of the user's own is left as it is.
// - CommandLine.arguments: on Linux the standard library reads /proc/self/cmdline, and without /proc the command
//   sees no arguments at all (it would read standard input with the default options). The C runtime hands every
//   constructor argc and argv; this passes them to the standard library's override
//   (_swift_stdlib_overrideUnsafeArgvArgc), so the arguments never depend on /proc.
//
// Priority 101 runs this before every constructor without a priority, the runtime's among them.

#if defined(__linux__)
#include <stdlib.h>
#include <unistd.h>

// The Swift standard library's hook for the process's arguments (libswiftCore, C calling convention).
extern void _swift_stdlib_overrideUnsafeArgvArgc(char **argv, int argc);

__attribute__((constructor(101))) static void linkparse_startup(int argc, char **argv, char **envp) {
  (void)envp;
  if (argv != NULL && argc > 0) _swift_stdlib_overrideUnsafeArgvArgc(argv, argc);
  char path[2];
  if (getenv("SWIFT_BACKTRACE") != NULL) return;
  if (readlink("/proc/self/exe", path, sizeof path) >= 0) return;
  setenv("SWIFT_BACKTRACE", "enable=no,swift-backtrace=/", 0);
}
#endif
