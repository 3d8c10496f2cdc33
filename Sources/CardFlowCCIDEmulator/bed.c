/* The testbed: umockdev sandbox, root hubs, and the control thread that adds and removes
   devices. */
#define _GNU_SOURCE /* vasprintf */
#include "ccid_emu_private.h"

#include <dlfcn.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ROOT_PARENT "/devices/pci0000:00/0000:00:14.0"

char *emu_strdup_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    char *s = NULL;
    if (vasprintf(&s, format, args) < 0)
        s = NULL;
    va_end(args);
    return s;
}

int ccid_emu_in_mock_environment(void)
{
    /* Not umockdev_in_mock_environment(): it looks at /sys, which only the preload redirects once
       UMOCKDEV_DIR is set, and caches the first answer. Ask the dynamic linker instead. */
    void *preload = dlopen("libumockdev-preload.so.0", RTLD_NOW | RTLD_NOLOAD);
    if (preload == NULL)
        return 0;
    dlclose(preload);
    return 1;
}

char *emu_terminate_attributes(const char *record)
{
    GString *out = g_string_new(NULL);
    const char *line = record;
    while (*line != '\0') {
        const char *end = strchr(line, '\n');
        size_t length = end != NULL ? (size_t)(end - line) : strlen(line);
        g_string_append_len(out, line, (gssize)length);
        if (length > 3 && strncmp(line, "A: ", 3) == 0)
            g_string_append(out, "\\n");
        if (end == NULL)
            break;
        g_string_append_c(out, '\n');
        line = end + 1;
    }
    return g_string_free(out, FALSE);
}

/* ---- control thread ----
 * umockdev 0.17.16 creates its uevent sender (a libudev object) on first use, and libudev
 * objects must stay on one thread; every testbed call goes through this thread. */

typedef struct emu_job {
    emu_job_fn fn; /* NULL: stop the thread */
    void *data;
    GMutex mutex;
    GCond cond;
    bool done;
} emu_job;

static gpointer control_thread_main(gpointer user_data)
{
    ccid_emu_bed *bed = user_data;
    for (;;) {
        emu_job *job = g_async_queue_pop(bed->jobs);
        bool stop = job->fn == NULL;
        if (!stop)
            job->fn(bed, job->data);
        g_mutex_lock(&job->mutex);
        job->done = true;
        g_cond_signal(&job->cond);
        g_mutex_unlock(&job->mutex);
        if (stop)
            return NULL;
    }
}

void emu_run_on_control_thread(ccid_emu_bed *bed, emu_job_fn fn, void *data)
{
    emu_job job = {.fn = fn, .data = data, .done = false};
    g_mutex_init(&job.mutex);
    g_cond_init(&job.cond);
    g_async_queue_push(bed->jobs, &job);
    g_mutex_lock(&job.mutex);
    while (!job.done)
        g_cond_wait(&job.cond, &job.mutex);
    g_mutex_unlock(&job.mutex);
    g_mutex_clear(&job.mutex);
    g_cond_clear(&job.cond);
}

/* ---- root hubs ---- */

static char *root_hub_record(int bus)
{
    /* A USB 2.0 root hub with one configuration, one hub interface and its status endpoint. */
    static const uint8_t descriptors[] = {
        0x12, 0x01, 0x00, 0x02, 0x09, 0x00, 0x01, 0x40, 0x6b, 0x1d, 0x02, 0x00, 0x06, 0x06, 0x03, 0x02, 0x01, 0x01,
        0x09, 0x02, 0x19, 0x00, 0x01, 0x01, 0x00, 0xe0, 0x00,
        0x09, 0x04, 0x00, 0x00, 0x01, 0x09, 0x00, 0x00, 0x00,
        0x07, 0x05, 0x81, 0x03, 0x04, 0x00, 0x0c,
    };
    char *hex = emu_hex(descriptors, sizeof descriptors);
    /* No N: line: nothing serves ioctls for the hub, so opening it should fail cleanly. */
    char *record = g_strdup_printf(
        "P: " ROOT_PARENT "/usb%d\n"
        "E: SUBSYSTEM=usb\n"
        "E: DEVTYPE=usb_device\n"
        "E: DEVNAME=/dev/bus/usb/%03d/001\n"
        "E: BUSNUM=%03d\n"
        "E: DEVNUM=001\n"
        "E: PRODUCT=1d6b/2/606\n"
        "E: TYPE=9/0/1\n"
        "A: busnum=%d\n"
        "A: devnum=1\n"
        "A: devpath=0\n"
        "A: speed=480\n"
        "A: version= 2.00\n"
        "A: idVendor=1d6b\n"
        "A: idProduct=0002\n"
        "A: bcdDevice=0606\n"
        "A: bDeviceClass=09\n"
        "A: bDeviceSubClass=00\n"
        "A: bDeviceProtocol=01\n"
        "A: bMaxPacketSize0=64\n"
        "A: bNumConfigurations=1\n"
        "A: bNumInterfaces= 1\n"
        "A: bConfigurationValue=1\n"
        "A: bmAttributes=e0\n"
        "A: maxchild=127\n"
        "A: manufacturer=CardFlow\n"
        "A: product=CardFlow emulated USB bus\n"
        "A: serial=cardflow-usb%d\n"
        "H: descriptors=%s\n",
        bus, bus, bus, bus, bus, hex);
    g_free(hex);
    return record;
}

typedef struct add_hub_job {
    int bus;
    char *error;
} add_hub_job;

static void add_root_hub(ccid_emu_bed *bed, void *data)
{
    add_hub_job *job = data;
    char *raw = root_hub_record(job->bus);
    char *record = emu_terminate_attributes(raw);
    g_free(raw);
    GError *error = NULL;
    if (!umockdev_testbed_add_from_string(bed->testbed, record, &error)) {
        job->error = emu_strdup_error("cannot add the root hub of bus %d: %s", job->bus, error->message);
        g_error_free(error);
    }
    g_free(record);
}

/* ---- bed ---- */

/* The sandbox of a bed still alive at exit, removed then (a process-lifetime bed is never
   freed: tearing umockdev down while clients may hold nodes open would abort them). */
static char *exit_cleanup_dir;
static GMutex exit_cleanup_lock;

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

static void remove_sandbox_at_exit(void)
{
    g_mutex_lock(&exit_cleanup_lock);
    if (exit_cleanup_dir != NULL)
        nftw(exit_cleanup_dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    g_mutex_unlock(&exit_cleanup_lock);
}

static void create_testbed(ccid_emu_bed *bed, void *data)
{
    (void)data;
    bed->testbed = umockdev_testbed_new(); /* sets UMOCKDEV_DIR for this process */
    bed->root_dir = umockdev_testbed_get_root_dir(bed->testbed);
}

ccid_emu_bed *ccid_emu_bed_new(char **error)
{
    ccid_emu_bed *bed = g_new0(ccid_emu_bed, 1);
    g_mutex_init(&bed->lock);
    bed->readers = g_ptr_array_new();
    bed->jobs = g_async_queue_new();
    bed->bus = 1;
    bed->next_address = 2;
    bed->control_thread = g_thread_new("ccid-emu-control", control_thread_main, bed);
    emu_run_on_control_thread(bed, create_testbed, NULL);

    add_hub_job hub = {.bus = 1};
    emu_run_on_control_thread(bed, add_root_hub, &hub);
    if (hub.error != NULL) {
        if (error != NULL)
            *error = hub.error;
        else
            free(hub.error);
        ccid_emu_bed_free(bed);
        return NULL;
    }
    bed->root_hubs = 1;

    static gsize registered = 0;
    g_mutex_lock(&exit_cleanup_lock);
    g_free(exit_cleanup_dir);
    exit_cleanup_dir = g_strdup(bed->root_dir);
    g_mutex_unlock(&exit_cleanup_lock);
    if (g_once_init_enter(&registered)) {
        atexit(remove_sandbox_at_exit);
        g_once_init_leave(&registered, 1);
    }
    return bed;
}

static void destroy_testbed(ccid_emu_bed *bed, void *data)
{
    (void)data;
    g_clear_object(&bed->testbed);
}

void ccid_emu_bed_free(ccid_emu_bed *bed)
{
    if (bed == NULL)
        return;
    for (guint i = 0; i < bed->readers->len; i++)
        ccid_emu_reader_close(g_ptr_array_index(bed->readers, i));
    emu_run_on_control_thread(bed, destroy_testbed, NULL);
    emu_run_on_control_thread(bed, NULL, NULL);
    g_thread_join(bed->control_thread);
    for (guint i = 0; i < bed->readers->len; i++)
        emu_reader_free(g_ptr_array_index(bed->readers, i));
    g_ptr_array_free(bed->readers, TRUE);
    g_async_queue_unref(bed->jobs);
    g_mutex_lock(&exit_cleanup_lock);
    if (g_strcmp0(exit_cleanup_dir, bed->root_dir) == 0)
        g_clear_pointer(&exit_cleanup_dir, g_free);
    g_mutex_unlock(&exit_cleanup_lock);
    g_free(bed->root_dir);
    g_mutex_clear(&bed->lock);
    g_free(bed);
}

const char *ccid_emu_bed_dir(const ccid_emu_bed *bed)
{
    return bed->root_dir;
}

/* Gives the next device its bus and address (a new root hub when a bus fills up) and plugs it
   in; `ftdi` non-NULL makes it an FTDI device. */
static ccid_emu_reader *add_device(ccid_emu_bed *bed, const ccid_emu_reader_info *info,
                                   const ccid_emu_callbacks *callbacks, void *context,
                                   const ccid_emu_ftdi_callbacks *ftdi, char **error)
{
    /* Addresses are never reused; after 127 the next bus takes over, as a second controller. */
    g_mutex_lock(&bed->lock);
    if (bed->next_address > 127) {
        bed->bus++;
        bed->next_address = 2;
    }
    int bus = bed->bus;
    int address = bed->next_address++;
    bool needs_hub = bus > bed->root_hubs;
    if (needs_hub)
        bed->root_hubs = bus;
    g_mutex_unlock(&bed->lock);

    if (needs_hub) {
        add_hub_job hub = {.bus = bus};
        emu_run_on_control_thread(bed, add_root_hub, &hub);
        if (hub.error != NULL) {
            if (error != NULL)
                *error = hub.error;
            else
                free(hub.error);
            return NULL;
        }
    }

    ccid_emu_reader *reader = emu_reader_new(bed, bus, address, info, callbacks, context, ftdi, error);
    if (reader == NULL)
        return NULL;
    g_mutex_lock(&bed->lock);
    g_ptr_array_add(bed->readers, reader);
    g_mutex_unlock(&bed->lock);
    return reader;
}

ccid_emu_reader *ccid_emu_bed_add_reader(ccid_emu_bed *bed, const ccid_emu_reader_info *info,
                                         const ccid_emu_callbacks *callbacks, void *context, char **error)
{
    if (info == NULL || info->class_descriptor == NULL || info->class_descriptor_length != 54 ||
        info->class_descriptor[0] != 0x36 || info->class_descriptor[1] != 0x21) {
        if (error != NULL)
            *error = emu_strdup_error("the CCID class descriptor must be 54 bytes starting 36 21");
        return NULL;
    }
    return add_device(bed, info, callbacks, context, NULL, error);
}

ccid_emu_reader *ccid_emu_bed_add_ftdi(ccid_emu_bed *bed, const ccid_emu_ftdi_info *info,
                                       const ccid_emu_ftdi_callbacks *callbacks, void *context, char **error)
{
    static const ccid_emu_ftdi_callbacks none = {0};
    if (info == NULL) {
        if (error != NULL)
            *error = emu_strdup_error("no FTDI device description");
        return NULL;
    }
    if (callbacks == NULL)
        callbacks = &none;
    const ccid_emu_reader_info reader_info = {
        .vendor_id = info->vendor_id,
        .product_id = info->product_id,
        .bcd_device = 0x0600,
        .manufacturer = info->manufacturer,
        .product = info->product,
        .serial_number = info->serial_number,
    };
    /* the serial line's bytes are the bulk-OUT data as they come (FTDI sends no header out) */
    const ccid_emu_callbacks reader_callbacks = {.on_bulk_out = callbacks->on_serial_out};
    return add_device(bed, &reader_info, &reader_callbacks, context, callbacks, error);
}
