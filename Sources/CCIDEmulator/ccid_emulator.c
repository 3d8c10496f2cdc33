#include "ccid_emulator.h"
int ccid_emulator_available(void) { return 0; }
