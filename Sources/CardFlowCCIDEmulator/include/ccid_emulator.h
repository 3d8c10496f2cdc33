/*
 * CCIDEmulator: presents USB CCID readers to libusb programs through umockdev.
 *
 * The emulator is a USB-level pipe, not a CCID model. It answers every usbdevfs request
 * libusb makes (descriptors, claims, kernel-driver detach, URB submit/reap/discard), hands
 * bulk-OUT data to a callback and completes bulk-IN and interrupt-IN URBs with data the host
 * side pushes. The CCID protocol itself lives behind the callbacks (in CardFlow:
 * CardSimulator's VirtualCCIDReader, bridged by CardSimulatorUSB).
 *
 * Process model
 * -------------
 * - One bed per process: umockdev keeps its sandbox in $UMOCKDEV_DIR, which is process-wide.
 *   ccid_emu_bed_new() sets it.
 * - Programs that talk to the emulated readers must run with
 *   LD_PRELOAD=libumockdev-preload.so.0 (umockdev-wrapper) from their start, and with the
 *   bed's UMOCKDEV_DIR in their environment (children inherit it). That includes this process
 *   when it uses libusb itself, and the emulator process too: umockdev delivers uevents
 *   (hotplug) only from a preloaded process.
 * - umockdev runs every ioctl handler on one worker thread. All URB memory is touched only
 *   there; the host-side calls below queue work for it and return at once.
 * - Adding and removing devices and sending uevents happen on one control thread the bed
 *   owns (umockdev's uevent sender must stay on one thread); the calls wait for it.
 *
 * Each reader is one USB device on an emulated bus: bus 1 from address 2 on, a further bus
 * once 127 is reached. Addresses are never reused, so an unplugged and re-added reader comes
 * back under a new address, as it does on real hardware. Its /dev node is a FIFO whose
 * POLLOUT readiness means "a completed URB is waiting", so a client with an idle pending
 * interrupt URB sleeps in poll() instead of spinning on REAPURBNDELAY.
 *
 * Strings returned through `char **error` are malloc()ed; release them with free().
 */
#ifndef CCID_EMULATOR_H
#define CCID_EMULATOR_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct ccid_emu_bed ccid_emu_bed;
typedef struct ccid_emu_reader ccid_emu_reader;

/* Endpoints of every emulated reader. */
#define CCID_EMU_ENDPOINT_BULK_OUT 0x01
#define CCID_EMU_ENDPOINT_BULK_IN 0x82
#define CCID_EMU_ENDPOINT_INTERRUPT_IN 0x83
/* wMaxPacketSize of the bulk endpoints and of the interrupt endpoint (full speed). */
#define CCID_EMU_BULK_PACKET_SIZE 64
#define CCID_EMU_INTERRUPT_PACKET_SIZE 8

/* What the emulated USB device looks like. Strings are copied; NULL or "" leaves a string out. */
typedef struct ccid_emu_reader_info {
    uint16_t vendor_id;
    uint16_t product_id;
    uint16_t bcd_device;
    const char *manufacturer;
    const char *product;
    const char *serial_number;
    const char *interface_name;
    /* The CCID class descriptor (bLength 0x36, bDescriptorType 0x21): exactly 54 bytes. */
    const uint8_t *class_descriptor;
    size_t class_descriptor_length;
    /* Non-zero: the interface has the interrupt-IN endpoint 0x83 (card events). */
    int has_interrupt_endpoint;
} ccid_emu_reader_info;

/* The setup packet of a control transfer, in host byte order. */
typedef struct ccid_emu_setup_packet {
    uint8_t request_type;
    uint8_t request;
    uint16_t value;
    uint16_t index;
    uint16_t length;
} ccid_emu_setup_packet;

/* Results of on_control besides a byte count. */
#define CCID_EMU_CONTROL_STALL (-1)
#define CCID_EMU_CONTROL_PENDING (-2)

/*
 * Called on umockdev's worker thread. They must return quickly and must not call
 * ccid_emu_reader_unplug/close/bed_free (which wait for that thread); the push and complete
 * functions are fine.
 */
typedef struct ccid_emu_callbacks {
    /* One completed bulk-OUT URB (usually one CCID message), in submission order. `data` is
       valid during the call only. Zero-length transfers are passed on as well. */
    void (*on_bulk_out)(void *context, const uint8_t *data, size_t length);
    /*
     * A class request on the default pipe (standard requests are answered by the emulator,
     * vendor requests stall). `out_data` holds the host-to-device data stage. Return the
     * number of bytes written to `in_data` (room for setup->length bytes) for a device-to-
     * host request, 0 to accept a host-to-device one, CCID_EMU_CONTROL_STALL to stall, or
     * CCID_EMU_CONTROL_PENDING to answer later with ccid_emu_reader_complete_control(token).
     * NULL: every class request stalls.
     */
    int (*on_control)(void *context, const ccid_emu_setup_packet *setup, const uint8_t *out_data,
                      size_t out_length, uint8_t *in_data, uint64_t token);
} ccid_emu_callbacks;

/* Counters, for tests and measurements. */
typedef struct ccid_emu_reader_stats {
    uint64_t ioctls;          /* every usbdevfs request received */
    uint64_t urbs_submitted;
    uint64_t urbs_reaped;
    uint64_t empty_reaps;     /* REAPURBNDELAY answered with EAGAIN */
    uint64_t bulk_out_transfers;
    uint64_t bulk_in_transfers;
    uint64_t interrupt_transfers;
    uint64_t control_transfers;
    uint64_t clients_connected; /* file descriptors opened on the device node, ever */
    uint64_t unknown_ioctls;    /* answered with ENOTTY */
} ccid_emu_reader_stats;

/* Non-zero when this process runs under libumockdev-preload (umockdev-wrapper). */
int ccid_emu_in_mock_environment(void);

/* Creates the process's bed (sets UMOCKDEV_DIR) with an empty root hub on bus 1.
   NULL on failure, with *error set when error is not NULL. */
ccid_emu_bed *ccid_emu_bed_new(char **error);

/* Tears the bed down: unplugs every reader, frees them and removes the sandbox. No client may
   still have a device node open (umockdev's preload aborts a client whose socket closes). */
void ccid_emu_bed_free(ccid_emu_bed *bed);

/* The sandbox directory; the value of UMOCKDEV_DIR for client processes. */
const char *ccid_emu_bed_dir(const ccid_emu_bed *bed);

/*
 * Plugs in a new reader: synthesises its device and configuration descriptors (interface
 * class 0x0B, bulk OUT 0x01, bulk IN 0x82, optional interrupt IN 0x83), writes the sysfs
 * records libusb and pcscd read (usb_device and usb_interface nodes), and emits the "add"
 * uevents (libusb: LIBUSB_HOTPLUG_EVENT_DEVICE_ARRIVED). `context` is passed to the
 * callbacks until ccid_emu_reader_close(). The reader object stays valid until the bed is
 * freed. NULL on failure, with *error set when error is not NULL.
 */
ccid_emu_reader *ccid_emu_bed_add_reader(ccid_emu_bed *bed, const ccid_emu_reader_info *info,
                                         const ccid_emu_callbacks *callbacks, void *context,
                                         char **error);

int ccid_emu_reader_bus_number(const ccid_emu_reader *reader);
int ccid_emu_reader_device_address(const ccid_emu_reader *reader);
/* "/sys/devices/.../usb1/1-N" */
const char *ccid_emu_reader_sysfs_path(const ccid_emu_reader *reader);
/* "/dev/bus/usb/BBB/DDD" as clients open it */
const char *ccid_emu_reader_device_node(const ccid_emu_reader *reader);

/* Queues one message for the next bulk-IN URB(s). A message longer than the URB's buffer fills
   it and continues in the next URB when the buffer is a multiple of 64 bytes, and completes it
   with -EOVERFLOW otherwise (the rest is lost), as a babbling device would.
   Returns 0, or -ENODEV after an unplug. Thread-safe. */
int ccid_emu_reader_push_bulk_in(ccid_emu_reader *reader, const uint8_t *data, size_t length);

/* Queues one message for the interrupt-IN endpoint. Returns 0, -ENODEV after an unplug, or
   -ENOENT when the reader has no interrupt endpoint. Thread-safe. */
int ccid_emu_reader_push_interrupt(ccid_emu_reader *reader, const uint8_t *data, size_t length);

/* Halts the bulk-IN endpoint: the pending or next bulk-IN URB, and every one after it,
   completes with -EPIPE (LIBUSB_TRANSFER_STALL) until the host clears the halt
   (libusb_clear_halt). Queued data stays queued. Returns 0 or -ENODEV. Thread-safe. */
int ccid_emu_reader_stall_bulk_in(ccid_emu_reader *reader);

/* Answers a control request for which on_control returned CCID_EMU_CONTROL_PENDING. `result`
   is the byte count of `data` (device-to-host), 0 (host-to-device accepted) or
   CCID_EMU_CONTROL_STALL. Returns 0, or -ENOENT when the request is gone (cancelled by the
   client, or the reader was unplugged). Thread-safe. */
int ccid_emu_reader_complete_control(ccid_emu_reader *reader, uint64_t token, int result,
                                     const uint8_t *data, size_t length);

/*
 * Unplugs the reader, as pulling the cable does: pending URBs complete with -ENODEV
 * (LIBUSB_TRANSFER_NO_DEVICE), every later request but a reap fails with ENODEV, the
 * "remove" uevents go out (LIBUSB_HOTPLUG_EVENT_DEVICE_LEFT) and the sysfs records and /dev
 * node disappear. Idempotent; waits until done. Must not be called from a callback.
 */
void ccid_emu_reader_unplug(ccid_emu_reader *reader);

/* Non-zero once the reader was unplugged. */
int ccid_emu_reader_is_unplugged(const ccid_emu_reader *reader);

/* Unplugs the reader (if still present) and detaches the callbacks: once it returns, no
   callback runs or will run with the reader's context. Must not be called from a callback. */
void ccid_emu_reader_close(ccid_emu_reader *reader);

void ccid_emu_reader_get_stats(const ccid_emu_reader *reader, ccid_emu_reader_stats *stats);

/*
 * FTDI FT232R-like devices (ftdi.c)
 * ---------------------------------
 * A USB-serial bridge in the shape libftdi1 and pyftdi drive: one vendor-class interface
 * (0xFF/0xFF/0xFF) with bulk OUT 0x02 and bulk IN 0x81 (64-byte packets), bcdDevice 0x0600
 * (what libftdi reads as an FT232R). The chip's vendor requests are answered here: reset and
 * purges (0), modem control DTR/RTS (1), flow control (2), baud divisor (3), data format (4),
 * modem status (5), event/error characters (6, 7), latency timer set/get (9, 10), bit mode
 * (11), EEPROM read (0x90, a blank EEPROM). Bulk-OUT bytes are the serial line's data, handed
 * to on_serial_out as they come. Bytes pushed with ccid_emu_ftdi_push_serial go back in
 * bulk-IN packets that each begin with the two modem-status bytes; with nothing to send, a
 * pending bulk-IN URB completes with the status bytes alone once the latency timer expires
 * (a timer on umockdev's worker thread, no busy loop).
 */

/* The serial line as the host last set it. */
typedef struct ccid_emu_ftdi_line {
    uint32_t baud_rate;   /* decoded from the divisor (FT232R: 3 MHz base with 1/8 fractions) */
    uint8_t data_bits;    /* 7 or 8 */
    uint8_t parity;       /* 0 none, 1 odd, 2 even, 3 mark, 4 space */
    uint8_t stop_bits;    /* 0 one, 1 one and a half, 2 two */
    uint8_t break_on;
    uint16_t flow_control;/* 0 none, 0x100 RTS/CTS, 0x200 DTR/DSR, 0x400 XON/XOFF */
    uint8_t dtr;          /* 1 asserted (SIO_SET_DTR_HIGH) */
    uint8_t rts;          /* 1 asserted (SIO_SET_RTS_HIGH) */
    uint8_t latency_ms;   /* the latency timer (16 after a reset of the chip) */
    uint8_t bit_mode;     /* 0 serial (bit-bang off) */
} ccid_emu_ftdi_line;

typedef struct ccid_emu_ftdi_info {
    uint16_t vendor_id;   /* 0x0403 */
    uint16_t product_id;  /* 0x6001 */
    const char *manufacturer;
    const char *product;
    const char *serial_number;
} ccid_emu_ftdi_info;

/* Called on umockdev's worker thread, with the same rules as ccid_emu_callbacks. */
typedef struct ccid_emu_ftdi_callbacks {
    /* Bytes the host wrote to the serial line (one bulk-OUT URB). */
    void (*on_serial_out)(void *context, const uint8_t *data, size_t length);
    /* The line changed (baud, format, DTR/RTS, latency, a purge or reset): its new state. */
    void (*on_line)(void *context, const ccid_emu_ftdi_line *line);
} ccid_emu_ftdi_callbacks;

/* Plugs in an FTDI device; released and unplugged like a reader (ccid_emu_reader_*). */
ccid_emu_reader *ccid_emu_bed_add_ftdi(ccid_emu_bed *bed, const ccid_emu_ftdi_info *info,
                                       const ccid_emu_ftdi_callbacks *callbacks, void *context, char **error);

/* Queues bytes the serial device sent, for the host's bulk-IN reads. 0, -ENODEV after an
   unplug, -EINVAL for a device that is not an FTDI one. Thread-safe. */
int ccid_emu_ftdi_push_serial(ccid_emu_reader *reader, const uint8_t *data, size_t length);

/* The line as the host set it. Thread-safe. */
void ccid_emu_ftdi_get_line(ccid_emu_reader *reader, ccid_emu_ftdi_line *line);

#ifdef __cplusplus
}
#endif

#endif /* CCID_EMULATOR_H */
