// Nothing to call: the target's one function is a constructor (startup.c) that runs before the Swift runtime's.
#ifndef CLINKPARSE_STARTUP_H
#define CLINKPARSE_STARTUP_H
#endif
