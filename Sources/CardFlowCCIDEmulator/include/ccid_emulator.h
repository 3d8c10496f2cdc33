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

#ifdef __cplusplus
}
#endif

#endif /* CCID_EMULATOR_H */
