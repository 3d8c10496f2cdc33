/* A plain PC/SC client, independent of CardFlow: sends one escape command to a reader with
 * SCardControl(SCARD_CTL_CODE(1)) on a SCARD_SHARE_DIRECT connection (no card needed), as
 * pcsc-lite's own scardcontrol example and libnfc's acr122_pcsc driver do, and prints the
 * reader's answer in hex. Used by Scripts/pcscd-signal-check.sh.
 *
 * Build: gcc pcsc-escape.c $(pkg-config --cflags --libs libpcsclite)
 * Usage: pcsc-escape NAME-PART HEX    e.g. pcsc-escape ACR1252 "E0 00 00 29 01 02"
 * Waits up to 20 s for a reader whose name contains NAME-PART.
 * Exit status: 0 answered, 1 SCardControl failed (its error on stderr), 2 setup problem. */
#include <reader.h>
#include <winscard.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int parse_hex(const char *text, unsigned char *out, size_t capacity, size_t *length) {
    *length = 0;
    while (*text) {
        if (*text == ' ') { text++; continue; }
        unsigned int byte;
        if (*length >= capacity || sscanf(text, "%2x", &byte) != 1 || !text[1]) return -1;
        out[(*length)++] = (unsigned char)byte;
        text += 2;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 3) { fprintf(stderr, "usage: pcsc-escape NAME-PART HEX\n"); return 2; }
    unsigned char command[262], answer[262];
    size_t command_length;
    if (parse_hex(argv[2], command, sizeof command, &command_length) != 0) {
        fprintf(stderr, "pcsc-escape: bad hex %s\n", argv[2]);
        return 2;
    }
    SCARDCONTEXT context;
    LONG rv = SCardEstablishContext(SCARD_SCOPE_SYSTEM, NULL, NULL, &context);
    if (rv != SCARD_S_SUCCESS) { fprintf(stderr, "SCardEstablishContext: %s\n", pcsc_stringify_error(rv)); return 2; }
    char readers[4096], *reader = NULL;
    for (int attempt = 0; attempt < 100 && !reader; attempt++) {
        DWORD size = sizeof readers;
        if (SCardListReaders(context, NULL, readers, &size) == SCARD_S_SUCCESS) {
            for (char *name = readers; *name; name += strlen(name) + 1)
                if (strstr(name, argv[1])) { reader = name; break; }
        }
        if (!reader) usleep(200000);
    }
    if (!reader) { fprintf(stderr, "pcsc-escape: no reader named *%s*\n", argv[1]); return 2; }
    SCARDHANDLE card;
    DWORD active;
    rv = SCardConnect(context, reader, SCARD_SHARE_DIRECT, 0, &card, &active);
    if (rv != SCARD_S_SUCCESS) { fprintf(stderr, "SCardConnect: %s\n", pcsc_stringify_error(rv)); return 2; }
    DWORD answer_length = 0;
    rv = SCardControl(card, SCARD_CTL_CODE(1), command, (DWORD)command_length, answer, sizeof answer,
        &answer_length);
    if (rv != SCARD_S_SUCCESS) {
        fprintf(stderr, "SCardControl: %s (0x%08lX)\n", pcsc_stringify_error(rv), (unsigned long)rv);
        SCardDisconnect(card, SCARD_LEAVE_CARD);
        return 1;
    }
    printf("reader: %s\nanswer:", reader);
    for (DWORD i = 0; i < answer_length; i++) printf(" %02X", answer[i]);
    printf("\n");
    SCardDisconnect(card, SCARD_LEAVE_CARD);
    SCardReleaseContext(context);
    return 0;
}
