/* The smallest libusb CCID client we could write: synchronous bulk transfers, no error
 * recovery, one fixed APDU. It is the yardstick for CardFlow's driver on the same emulated
 * device: APDU/s of CardFlow divided by APDU/s of this. */
#include <libusb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static int exchange(libusb_device_handle *h, unsigned char *out, int outlen, unsigned char *in, int inmax) {
    int done = 0;
    if (libusb_bulk_transfer(h, 0x01, out, outlen, &done, 2000) != 0) return -1;
    if (libusb_bulk_transfer(h, 0x82, in, inmax, &done, 2000) != 0) return -1;
    return done;
}

int main(int argc, char **argv) {
    int count = argc > 1 ? atoi(argv[1]) : 500;
    libusb_context *ctx = NULL;
    if (libusb_init(&ctx) != 0) return 2;
    libusb_device_handle *h = libusb_open_device_with_vid_pid(ctx, 0x1209, 0x2702);
    if (!h) { fprintf(stderr, "no 1209:2702 device\n"); return 2; }
    libusb_set_auto_detach_kernel_driver(h, 1);
    if (libusb_claim_interface(h, 0) != 0) { fprintf(stderr, "claim failed\n"); return 2; }
    unsigned char in[1024];
    unsigned char seq = 0;
    unsigned char power[10] = {0x62, 0, 0, 0, 0, 0, seq++, 0, 0, 0};
    if (exchange(h, power, 10, in, sizeof in) < 10) { fprintf(stderr, "power on failed\n"); return 1; }
    unsigned char apdu[] = {0x00, 0xA4, 0x04, 0x00, 0x07, 0xA0, 0x00, 0x00, 0x02, 0x47, 0x10, 0x01};
    unsigned char xfr[10 + sizeof apdu] = {0x6F, sizeof apdu, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(xfr + 10, apdu, sizeof apdu);
    double start = now();
    for (int i = 0; i < count; i++) {
        xfr[6] = seq++;
        int n = exchange(h, xfr, sizeof xfr, in, sizeof in);
        if (n < 12 || in[n - 2] != 0x90) { fprintf(stderr, "bad answer at %d\n", i); return 1; }
    }
    double elapsed = now() - start;
    printf("minimal-c %d APDUs %.3f s %.1f APDU/s\n", count, elapsed, count / elapsed);
    libusb_release_interface(h, 0);
    libusb_close(h);
    libusb_exit(ctx);
    return 0;
}
