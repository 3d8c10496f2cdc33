#include <openssl/evp.h>
#include <openssl/err.h>
#include <openssl/crypto.h>
