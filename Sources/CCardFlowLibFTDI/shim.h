#include <ftdi.h>
