// Everything is in the header (static inline); SwiftPM needs a source file for a C target.
#include "CByteScan.h"
