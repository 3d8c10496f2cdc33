/* Internal state of the CCID emulator; see include/ccid_emulator.h for the model. */
#ifndef CCID_EMU_PRIVATE_H
#define CCID_EMU_PRIVATE_H

#ifndef G_LOG_DOMAIN
#define G_LOG_DOMAIN "ccid-emu"
#endif

#include <glib.h>
#include <umockdev.h>
#include <stdbool.h>

#include "ccid_emulator.h"

/* Endpoint slots: 0 bulk OUT, 1 bulk IN, 2 interrupt IN. */
enum { EP_BULK_OUT = 0, EP_BULK_IN = 1, EP_INTERRUPT = 2, EP_COUNT = 3 };

/* One message the host side pushed for an IN endpoint, partly consumed when a URB took only
   part of it. */
typedef struct emu_message {
    uint8_t *data;
    size_t length;
    size_t offset;
} emu_message;

typedef struct client_state client_state;

/* A submitted URB. We hold references on its client-memory mirrors until it is reaped. */
typedef struct urb_entry {
    client_state *owner;
    UMockdevIoctlData *urb_data;    /* struct usbdevfs_urb */
    UMockdevIoctlData *buffer_data; /* its buffer; NULL when zero-length */
    int slot;                       /* EP_* or -1 for control */
} urb_entry;

/* A class request waiting for the host side (on_control returned PENDING), as a control URB
   or as a blocking USBDEVFS_CONTROL ioctl. */
typedef struct control_entry {
    uint64_t token;
    client_state *owner;
    urb_entry *urb;                  /* control URB, or NULL for USBDEVFS_CONTROL */
    UMockdevIoctlClient *sync_client;/* USBDEVFS_CONTROL: the client blocked in the ioctl */
    UMockdevIoctlData *sync_data;    /* its data stage (may be NULL) */
    ccid_emu_setup_packet setup;
    bool answered;
    int result;
    uint8_t *answer;
    size_t answer_length;
} control_entry;

/* One open file descriptor on the device node (one umockdev ioctl client). */
struct client_state {
    UMockdevIoctlClient *client;
    GQueue completed;                /* urb_entry*, ready to reap */
    UMockdevIoctlData *blocked_reap; /* arg of a blocking REAPURB waiting for a completion */
    size_t read_offset;              /* how far read() got through the descriptors */
};

/* The FTDI chip's state (ftdi.c); NULL in a CCID reader. */
typedef struct emu_ftdi {
    ccid_emu_ftdi_line line;
    void (*on_line)(void *context, const ccid_emu_ftdi_line *line);
    GSource *timer;   /* the latency timer, armed while a bulk-IN URB waits with no data */
    bool timer_fired; /* it expired: the waiting URB gets the status bytes alone */
} emu_ftdi;

struct ccid_emu_reader {
    ccid_emu_bed *bed;
    uint8_t ep_out;          /* bulk OUT and IN endpoint addresses */
    uint8_t ep_in;
    uint8_t interface_class; /* 0x0B CCID, 0xFF FTDI (subclass and protocol alike) */
    emu_ftdi *ftdi;
    int bus;
    int address;
    char *syspath;           /* /sys/devices/.../usbB/B-P */
    char *interface_syspath; /* .../B-P:1.0 */
    char *devnode;           /* /dev/bus/usb/BBB/DDD */
    char *fifo_path;         /* $UMOCKDEV_DIR/dev/bus/usb/BBB/DDD */
    uint8_t device_descriptor[18];
    uint8_t *configuration;
    size_t configuration_length;
    char *strings[5];        /* string descriptor index 1..4 */
    bool has_interrupt;
    UMockdevIoctlBase *handler;
    int fifo_read_fd;
    int fifo_write_fd;

    GMutex lock;             /* everything below */
    bool token;              /* a byte sits in the FIFO: no POLLOUT */
    bool gone;               /* unplugged: requests fail with ENODEV */
    GMainContext *worker;    /* umockdev's worker thread, once a client connected */
    bool pump_scheduled;
    GPtrArray *clients;      /* client_state* */
    client_state *owner;     /* who claimed interface 0 */
    GQueue pending[EP_COUNT];/* urb_entry* waiting for data (IN slots) */
    GQueue data[EP_COUNT];   /* emu_message* waiting for URBs (IN slots) */
    bool halted[EP_COUNT];
    GQueue controls;         /* control_entry* */
    uint64_t next_token;
    ccid_emu_reader_stats stats;

    GMutex unplug_lock;      /* serialises unplug */
    bool removed;            /* sysfs records and node removed */

    GMutex callback_lock;    /* held while a callback runs */
    ccid_emu_callbacks callbacks;
    void *context;
    bool callbacks_enabled;
};

struct ccid_emu_bed {
    UMockdevTestbed *testbed;
    char *root_dir;
    GThread *control_thread;
    GAsyncQueue *jobs;
    GMutex lock;             /* below */
    GPtrArray *readers;
    int bus;                 /* bus and address of the next reader */
    int next_address;
    int root_hubs;           /* buses 1..root_hubs have their root hub */
};

/* descriptors.c */
void emu_build_device_descriptor(uint8_t out[18], const ccid_emu_reader_info *info, bool has_serial);
uint8_t *emu_build_configuration(const ccid_emu_reader_info *info, bool has_interface_string, size_t *length);
size_t emu_string_descriptor(const char *text, uint8_t *out, size_t capacity);
char *emu_hex(const uint8_t *data, size_t length);

/* bed.c */
typedef void (*emu_job_fn)(ccid_emu_bed *bed, void *data);
void emu_run_on_control_thread(ccid_emu_bed *bed, emu_job_fn fn, void *data);
char *emu_strdup_error(const char *format, ...) G_GNUC_PRINTF(1, 2);
/* Ends every "A:" value of a device record with an (escaped) newline, as sysfs files end. */
char *emu_terminate_attributes(const char *record);

/* reader.c; `ftdi` non-NULL makes an FTDI device (info's class descriptor is then unused) */
ccid_emu_reader *emu_reader_new(ccid_emu_bed *bed, int bus, int address, const ccid_emu_reader_info *info,
                                const ccid_emu_callbacks *callbacks, void *context,
                                const ccid_emu_ftdi_callbacks *ftdi, char **error);
/* For ftdi.c: reader.c's URB helpers (lock held, worker thread). */
struct usbdevfs_urb;
struct usbdevfs_urb *emu_urb_of(const urb_entry *e);
void emu_finish_urb(urb_entry *e, int status, int actual);
void emu_message_free(gpointer message);
void emu_pump_locked(ccid_emu_reader *r);

/* ftdi.c */
emu_ftdi *emu_ftdi_new(const ccid_emu_ftdi_callbacks *callbacks);
void emu_ftdi_free(emu_ftdi *ftdi);
void emu_ftdi_build_descriptors(const ccid_emu_reader_info *info, bool has_serial, uint8_t device[18],
                                uint8_t **configuration, size_t *length);
/* A vendor request (lock held): byte count, 0 or CCID_EMU_CONTROL_STALL; *line_changed when
   on_line should hear of it. */
int emu_ftdi_vendor_request(ccid_emu_reader *r, const ccid_emu_setup_packet *setup, uint8_t *in, bool *line_changed);
/* Completes waiting bulk-IN URBs with framed data, or arms the latency timer (lock held). */
void emu_ftdi_pump_bulk_in(ccid_emu_reader *r);
void emu_reader_free(ccid_emu_reader *reader);
/* Removes the sysfs records with their uevents (control thread). */
void emu_reader_remove_records(ccid_emu_bed *bed, ccid_emu_reader *reader);

#endif
