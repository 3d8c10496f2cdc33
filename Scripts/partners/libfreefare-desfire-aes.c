/* MIFARE DESFire EV1 AES secure messaging through libfreefare 0.4 and libnfc (Debian), for
 * Scripts/partners-check.sh: the first NFC device libnfc opens (LIBNFC_DEVICE), the first
 * DESFire on it. libfreefare does the AES authentication (AA), the session key, CMAC chaining,
 * CRC32 and CBC encipherment; this program only calls its public API.
 *
 *   libfreefare-desfire-aes write KEY ENC MAC
 *     formats the card (PICC master key DES 8 x 00), creates application AB CD AB with one AES
 *     key, changes that key from 16 x 00 to KEY (enciphered ChangeKey), creates standard data
 *     file 1 (enciphered, 64 bytes) and file 2 (MACed, 32 bytes), writes ENC to file 1 and MAC
 *     to file 2 (hex) and reads both back; prints "wrote 1 <hex>" and "wrote 2 <hex>".
 *   libfreefare-desfire-aes read KEY
 *     authenticates with KEY in application AB CD AB and prints "read 1 <hex of 64 bytes>" and
 *     "read 2 <hex of 32 bytes>".
 * Exits 0; 1 with the failing step on stderr.
 * Build: cc -o aes libfreefare-desfire-aes.c $(pkg-config --cflags --libs libfreefare libnfc)
 */
#include <freefare.h>
#include <nfc/nfc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int fail(const char *step, MifareTag tag) {
    if (tag)
        fprintf(stderr, "%s failed: %s\n", step, freefare_strerror(tag));
    else
        fprintf(stderr, "%s\n", step);
    return 1;
}

static int parse_hex(const char *text, uint8_t *bytes, size_t capacity) {
    size_t length = strlen(text);
    if (length % 2 != 0 || length / 2 > capacity) return -1;
    for (size_t i = 0; i < length / 2; i++) {
        unsigned value;
        if (sscanf(text + 2 * i, "%2x", &value) != 1) return -1;
        bytes[i] = (uint8_t)value;
    }
    return (int)(length / 2);
}

static void print_hex(const char *label, int file, const uint8_t *bytes, size_t count) {
    printf("%s %d ", label, file);
    for (size_t i = 0; i < count; i++) printf("%02X", bytes[i]);
    printf("\n");
}

/* Writes `text` (hex) to `file` in mode `cs`, reads it back and compares. */
static int write_and_check(MifareTag tag, uint8_t file, int cs, const char *text) {
    /* libfreefare 0.4 deciphers a response in the caller's buffer, CRC and padding included
     * (a 64-byte read needs 80 bytes: it overran a 64-byte buffer here), hence the room. */
    uint8_t data[64], sent[64], back[128];
    int length = parse_hex(text, data, sizeof data);
    if (length <= 0) return fail("bad data hex (at most 64 bytes)", NULL);
    /* libfreefare 0.4's enciphered WriteData changes the first byte of the buffer it is given
     * (seen here: 05 became 00), although the parameter is const: it gets a copy. */
    memcpy(sent, data, (size_t)length);
    if (mifare_desfire_write_data_ex(tag, file, 0, (size_t)length, sent, cs) != length)
        return fail(cs == MDCM_ENCIPHERED ? "enciphered WriteData" : "MACed WriteData", tag);
    if (mifare_desfire_read_data_ex(tag, file, 0, (size_t)length, back, cs) != length)
        return fail(cs == MDCM_ENCIPHERED ? "enciphered ReadData" : "MACed ReadData", tag);
    if (memcmp(data, back, (size_t)length) != 0) {
        print_hex("wrote", file, data, (size_t)length);
        print_hex("read back", file, back, (size_t)length);
        return fail("the data read back differs", NULL);
    }
    print_hex("wrote", file, data, (size_t)length);
    return 0;
}

int main(int argc, char **argv) {
    int writing = argc == 5 && strcmp(argv[1], "write") == 0;
    if (!writing && !(argc == 3 && strcmp(argv[1], "read") == 0)) {
        fprintf(stderr, "usage: %s write KEY ENC MAC | read KEY\n", argv[0]);
        return 2;
    }
    uint8_t key_bytes[16], zero_bytes[16] = {0}, des_zero[8] = {0};
    if (parse_hex(argv[2], key_bytes, sizeof key_bytes) != 16) return fail("KEY must be 32 hex digits", NULL);

    nfc_context *context;
    nfc_init(&context);
    if (!context) return fail("nfc_init failed", NULL);
    nfc_device *device = nfc_open(context, NULL);
    if (!device) return fail("nfc_open failed", NULL);
    MifareTag *tags = freefare_get_tags(device);
    if (!tags || !tags[0]) return fail("freefare_get_tags found no tag", NULL);
    MifareTag tag = tags[0];
    if (freefare_get_tag_type(tag) != DESFIRE) return fail("the first tag is not a DESFire", NULL);
    if (mifare_desfire_connect(tag) < 0) return fail("mifare_desfire_connect", tag);

    MifareDESFireKey key = mifare_desfire_aes_key_new(key_bytes);
    MifareDESFireAID aid = mifare_desfire_aid_new(0xABCDAB);
    int status = 0;
    if (writing) {
        MifareDESFireKey picc = mifare_desfire_des_key_new(des_zero);
        MifareDESFireKey zero = mifare_desfire_aes_key_new(zero_bytes);
        if (mifare_desfire_authenticate(tag, 0, picc) < 0) return fail("PICC authenticate (DES)", tag);
        if (mifare_desfire_format_picc(tag) < 0) return fail("FormatPICC", tag);
        if (mifare_desfire_authenticate(tag, 0, picc) < 0) return fail("PICC authenticate after format", tag);
        if (mifare_desfire_create_application_aes(tag, aid, 0x0F, 1) < 0) return fail("CreateApplication (AES)", tag);
        if (mifare_desfire_select_application(tag, aid) < 0) return fail("SelectApplication", tag);
        if (mifare_desfire_authenticate_aes(tag, 0, zero) < 0) return fail("AES authenticate, 16 x 00", tag);
        if (mifare_desfire_change_key(tag, 0, key, zero) < 0) return fail("ChangeKey to KEY", tag);
        if (mifare_desfire_authenticate_aes(tag, 0, key) < 0) return fail("AES authenticate with KEY", tag);
        uint16_t key0 = MDAR(MDAR_KEY0, MDAR_KEY0, MDAR_KEY0, MDAR_KEY0);
        if (mifare_desfire_create_std_data_file(tag, 1, MDCM_ENCIPHERED, key0, 64) < 0)
            return fail("CreateStdDataFile 1 (enciphered)", tag);
        if (mifare_desfire_create_std_data_file(tag, 2, MDCM_MACED, key0, 32) < 0)
            return fail("CreateStdDataFile 2 (MACed)", tag);
        status = write_and_check(tag, 1, MDCM_ENCIPHERED, argv[3]);
        if (status == 0) status = write_and_check(tag, 2, MDCM_MACED, argv[4]);
        mifare_desfire_key_free(zero);
        mifare_desfire_key_free(picc);
    } else {
        uint8_t data[128]; /* room for the CRC and padding, as in write_and_check */
        if (mifare_desfire_select_application(tag, aid) < 0) return fail("SelectApplication", tag);
        if (mifare_desfire_authenticate_aes(tag, 0, key) < 0) return fail("AES authenticate with KEY", tag);
        if (mifare_desfire_read_data_ex(tag, 1, 0, 64, data, MDCM_ENCIPHERED) != 64)
            return fail("enciphered ReadData of file 1", tag);
        print_hex("read", 1, data, 64);
        if (mifare_desfire_read_data_ex(tag, 2, 0, 32, data, MDCM_MACED) != 32)
            return fail("MACed ReadData of file 2", tag);
        print_hex("read", 2, data, 32);
    }
    free(aid);
    mifare_desfire_key_free(key);
    mifare_desfire_disconnect(tag);
    freefare_free_tags(tags);
    nfc_close(device);
    nfc_exit(context);
    return status;
}
