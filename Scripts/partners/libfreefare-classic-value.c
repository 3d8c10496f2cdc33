/* MIFARE Classic value blocks through libfreefare 0.4 and libnfc (Debian), for
 * Scripts/partners-check.sh: the first NFC device (the simulated ACR122U under
 * `cardctl simulate`), the first MIFARE Classic 1K on it, sector 1 with the transport key A.
 * libfreefare sends INCREMENT/DECREMENT/RESTORE (C1/C0/C2 with their operand) and TRANSFER (B0)
 * through the PN532's InDataExchange; this program only calls its public API.
 *
 * Prints one line per step: "init 5 100", "increment 5 250 -> 350", "decrement 5 50 -> 300",
 * "restore 5 -> 6 300", then exits 0; exits 1 with the failing step on stderr.
 * Build: cc -o value libfreefare-classic-value.c $(pkg-config --cflags --libs libfreefare libnfc)
 */
#include <freefare.h>
#include <nfc/nfc.h>
#include <stdio.h>
#include <stdlib.h>

static int fail(const char *step, MifareTag tag) {
    fprintf(stderr, "%s failed: %s\n", step, tag ? freefare_strerror(tag) : "no tag");
    return 1;
}

static int authenticate(MifareTag tag) {
    const MifareClassicKey transport = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};
    return mifare_classic_authenticate(tag, 4, transport, MFC_KEY_A);
}

static int value_of(MifareTag tag, MifareClassicBlockNumber block, int32_t *value) {
    MifareClassicBlockNumber address;
    return mifare_classic_read_value(tag, block, value, &address);
}

int main(void) {
    nfc_context *context;
    nfc_init(&context);
    if (!context) return fail("nfc_init", NULL);
    nfc_device *device = nfc_open(context, NULL);
    if (!device) return fail("nfc_open", NULL);
    MifareTag *tags = freefare_get_tags(device);
    if (!tags || !tags[0]) return fail("freefare_get_tags", NULL);
    MifareTag tag = tags[0];
    if (freefare_get_tag_type(tag) != CLASSIC_1K) return fail("not a MIFARE Classic 1K", NULL);
    if (mifare_classic_connect(tag) < 0) return fail("mifare_classic_connect", tag);
    if (authenticate(tag) < 0) return fail("mifare_classic_authenticate", tag);

    int32_t value = 0;
    if (mifare_classic_init_value(tag, 5, 100, 5) < 0) return fail("mifare_classic_init_value", tag);
    if (value_of(tag, 5, &value) < 0 || value != 100) return fail("mifare_classic_read_value after init", tag);
    printf("init 5 %d\n", value);

    if (mifare_classic_increment(tag, 5, 250) < 0) return fail("mifare_classic_increment", tag);
    if (mifare_classic_transfer(tag, 5) < 0) return fail("mifare_classic_transfer", tag);
    if (value_of(tag, 5, &value) < 0) return fail("mifare_classic_read_value after increment", tag);
    printf("increment 5 250 -> %d\n", value);

    if (mifare_classic_decrement(tag, 5, 50) < 0) return fail("mifare_classic_decrement", tag);
    if (mifare_classic_transfer(tag, 5) < 0) return fail("mifare_classic_transfer", tag);
    if (value_of(tag, 5, &value) < 0) return fail("mifare_classic_read_value after decrement", tag);
    printf("decrement 5 50 -> %d\n", value);

    if (mifare_classic_restore(tag, 5) < 0) return fail("mifare_classic_restore", tag);
    if (mifare_classic_transfer(tag, 6) < 0) return fail("mifare_classic_transfer to 6", tag);
    if (value_of(tag, 6, &value) < 0) return fail("mifare_classic_read_value of 6", tag);
    printf("restore 5 -> 6 %d\n", value);

    mifare_classic_disconnect(tag);
    freefare_free_tags(tags);
    nfc_close(device);
    nfc_exit(context);
    return 0;
}
