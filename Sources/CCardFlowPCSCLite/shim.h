#include <PCSC/wintypes.h>
#include <PCSC/winscard.h>
