#ifndef CCID_EMULATOR_H
#define CCID_EMULATOR_H
/* Placeholder header replaced by the emulator implementation. */
int ccid_emulator_available(void);
#endif
