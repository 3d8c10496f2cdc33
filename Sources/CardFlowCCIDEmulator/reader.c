/* One emulated reader: sysfs records, the FIFO-gated device node and the usbdevfs ioctls. */
#define _GNU_SOURCE /* F_SETPIPE_SZ */
#include "ccid_emu_private.h"

/* <sys/ioctl.h> must precede <linux/usbdevice_fs.h>, or the USBDEVFS_* macros do not build. */
#include <sys/ioctl.h>
#include <linux/usbdevice_fs.h>

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define ROOT_PARENT "/devices/pci0000:00/0000:00:14.0"

/* Linux USB speed code for full speed (USBDEVFS_GET_SPEED). */
#define EMU_SPEED_FULL 2

#define CAPABILITIES                                                                               \
    (USBDEVFS_CAP_ZERO_PACKET | USBDEVFS_CAP_BULK_CONTINUATION | USBDEVFS_CAP_NO_PACKET_SIZE_LIM | \
     USBDEVFS_CAP_BULK_SCATTER_GATHER | USBDEVFS_CAP_REAP_AFTER_DISCONNECT)

static void pump_locked(ccid_emu_reader *r);
static void schedule_pump(ccid_emu_reader *r);

/* ---- small helpers ---- */

static int slot_for_endpoint(const ccid_emu_reader *r, unsigned endpoint)
{
    if (endpoint == r->ep_out)
        return EP_BULK_OUT;
    if (endpoint == r->ep_in)
        return EP_BULK_IN;
    if (endpoint == CCID_EMU_ENDPOINT_INTERRUPT_IN && r->has_interrupt)
        return EP_INTERRUPT;
    return -1;
}

static size_t packet_size(int slot)
{
    return slot == EP_INTERRUPT ? CCID_EMU_INTERRUPT_PACKET_SIZE : CCID_EMU_BULK_PACKET_SIZE;
}

static struct usbdevfs_urb *urb_of(const urb_entry *e)
{
    return (struct usbdevfs_urb *)e->urb_data->data;
}

static void urb_entry_free(urb_entry *e)
{
    if (e == NULL)
        return;
    g_clear_object(&e->urb_data);
    g_clear_object(&e->buffer_data);
    g_free(e);
}

static void message_free(gpointer p)
{
    emu_message *m = p;
    g_free(m->data);
    g_free(m);
}

static void finish_urb(urb_entry *e, int status, int actual)
{
    struct usbdevfs_urb *urb = urb_of(e);
    urb->status = status;
    urb->actual_length = actual;
    g_queue_push_tail(&e->owner->completed, e);
}

struct usbdevfs_urb *emu_urb_of(const urb_entry *e)
{
    return urb_of(e);
}

void emu_finish_urb(urb_entry *e, int status, int actual)
{
    finish_urb(e, status, actual);
}

void emu_message_free(gpointer message)
{
    message_free(message);
}

/*
 * The device node is a FIFO whose POLLOUT readiness means "some client has a URB to reap",
 * as on a real usbfs fd: with nothing to reap one byte fills the one-page pipe, and libusb's
 * poll() sleeps instead of spinning on REAPURBNDELAY -> EAGAIN. Called under the lock after
 * every change of a completed queue, before the ioctl that caused it is completed, so a client
 * polling again after its reap sees the right state.
 */
static void update_ready(ccid_emu_reader *r)
{
    if (r->fifo_read_fd < 0)
        return;
    bool ready = false;
    for (guint i = 0; i < r->clients->len && !ready; i++) {
        client_state *cs = g_ptr_array_index(r->clients, i);
        ready = !g_queue_is_empty(&cs->completed);
    }
    if (ready && r->token) {
        char c;
        while (read(r->fifo_read_fd, &c, 1) == 1) {
        }
        r->token = false;
    } else if (!ready && !r->token) {
        if (write(r->fifo_write_fd, "x", 1) == 1)
            r->token = true;
    }
}

/* ---- clients ---- */

static void client_dropped(ccid_emu_reader *r, UMockdevIoctlClient *client);

static void on_client_notify(GObject *object, GParamSpec *pspec, gpointer user_data)
{
    (void)pspec;
    UMockdevIoctlClient *client = UMOCKDEV_IOCTL_CLIENT(object);
    if (!umockdev_ioctl_client_get_connected(client))
        client_dropped(user_data, client);
}

static client_state *find_client(ccid_emu_reader *r, UMockdevIoctlClient *client)
{
    for (guint i = 0; i < r->clients->len; i++) {
        client_state *cs = g_ptr_array_index(r->clients, i);
        if (cs->client == client)
            return cs;
    }
    return NULL;
}

/* Runs on the worker thread: remember its main context, so that work the host side queues can
   be handed to it. */
static void capture_worker_locked(ccid_emu_reader *r)
{
    if (r->worker == NULL) {
        r->worker = g_main_context_ref_thread_default();
        if (r->worker == g_main_context_default())
            g_warning("umockdev's ioctl handler runs on the default main context; host-side pushes may stall");
    }
}

static client_state *client_for(ccid_emu_reader *r, UMockdevIoctlClient *client)
{
    client_state *cs = find_client(r, client);
    if (cs != NULL)
        return cs;
    cs = g_new0(client_state, 1);
    cs->client = g_object_ref(client);
    g_queue_init(&cs->completed);
    g_ptr_array_add(r->clients, cs);
    r->stats.clients_connected++;
    g_signal_connect(client, "notify::connected", G_CALLBACK(on_client_notify), r);
    return cs;
}

static void on_client_connected(UMockdevIoctlBase *base, UMockdevIoctlClient *client, gpointer user_data)
{
    (void)base;
    ccid_emu_reader *r = user_data;
    g_mutex_lock(&r->lock);
    capture_worker_locked(r);
    client_for(r, client);
    g_mutex_unlock(&r->lock);
}

static void on_client_vanished(UMockdevIoctlBase *base, UMockdevIoctlClient *client, gpointer user_data)
{
    (void)base;
    client_dropped(user_data, client);
}

/* A client closed its fd (or died): the kernel kills its URBs and releases its claims. */
static void client_dropped(ccid_emu_reader *r, UMockdevIoctlClient *client)
{
    g_mutex_lock(&r->lock);
    client_state *cs = find_client(r, client);
    if (cs == NULL) {
        g_mutex_unlock(&r->lock);
        return;
    }
    for (int slot = 0; slot < EP_COUNT; slot++) {
        for (GList *l = r->pending[slot].head; l != NULL;) {
            GList *next = l->next;
            urb_entry *e = l->data;
            if (e->owner == cs) {
                g_queue_delete_link(&r->pending[slot], l);
                urb_entry_free(e);
            }
            l = next;
        }
    }
    for (GList *l = r->controls.head; l != NULL;) {
        GList *next = l->next;
        control_entry *c = l->data;
        if (c->owner == cs) {
            g_queue_delete_link(&r->controls, l);
            urb_entry_free(c->urb);
            g_clear_object(&c->sync_client);
            g_clear_object(&c->sync_data);
            g_free(c->answer);
            g_free(c);
        }
        l = next;
    }
    urb_entry *e;
    while ((e = g_queue_pop_head(&cs->completed)) != NULL)
        urb_entry_free(e);
    g_clear_object(&cs->blocked_reap);
    if (r->owner == cs)
        r->owner = NULL;
    g_ptr_array_remove(r->clients, cs);
    update_ready(r);
    g_mutex_unlock(&r->lock);

    g_signal_handlers_disconnect_by_data(client, r);
    g_object_unref(cs->client);
    g_free(cs);
}

/* usbfs claims an interface implicitly on first use; someone else's claim makes it busy. */
static int check_interface(ccid_emu_reader *r, client_state *cs)
{
    if (r->owner == cs)
        return 0;
    if (r->owner != NULL)
        return EBUSY;
    r->owner = cs;
    return 0;
}

/* Claim check for a control request (the kernel's check_ctrlrecip). */
static int check_control_recipient(ccid_emu_reader *r, client_state *cs, const ccid_emu_setup_packet *s)
{
    if ((s->request_type & 0x60) == 0x40) /* vendor requests are never checked */
        return 0;
    unsigned index = s->index & 0xff;
    switch (s->request_type & 0x1f) {
    case 1: /* interface */
        return index == 0 ? check_interface(r, cs) : ENOENT;
    case 2: /* endpoint */
        if ((index & 0x7f) == 0)
            return 0;
        return slot_for_endpoint(r, index) >= 0 ? check_interface(r, cs) : ENOENT;
    default:
        return 0;
    }
}

/* Kills a client's pending bulk/interrupt URBs (released interface): they complete with
   -ENOENT, which libusb reports as cancelled. */
static void kill_client_urbs(ccid_emu_reader *r, client_state *cs)
{
    for (int slot = EP_BULK_IN; slot < EP_COUNT; slot++) {
        for (GList *l = r->pending[slot].head; l != NULL;) {
            GList *next = l->next;
            urb_entry *e = l->data;
            if (e->owner == cs) {
                g_queue_delete_link(&r->pending[slot], l);
                finish_urb(e, -ENOENT, 0);
            }
            l = next;
        }
    }
}

/* ---- control requests ---- */

typedef struct deferred {
    uint8_t *bulk_out; /* data of a bulk-OUT URB, for on_bulk_out */
    size_t bulk_out_length;
    bool has_bulk_out;
    bool has_control; /* a class request for on_control */
    uint64_t control_token;
    ccid_emu_setup_packet setup;
    uint8_t *control_out;
    size_t control_out_length;
    bool ftdi_line_changed; /* an FTDI vendor request changed the line: tell on_line */
    ccid_emu_ftdi_line ftdi_line;
} deferred;

/* Standard requests, answered here. Returns the byte count, 0, or CCID_EMU_CONTROL_STALL. */
static int standard_request(ccid_emu_reader *r, const ccid_emu_setup_packet *s, uint8_t *in)
{
    const unsigned type = s->value >> 8;
    const unsigned index = s->value & 0xff;
    const int recipient = s->request_type & 0x1f;
    switch (s->request) {
    case 0x06: /* GET_DESCRIPTOR */
        if ((s->request_type & 0x80) == 0)
            return CCID_EMU_CONTROL_STALL;
        if (type == 0x01) {
            size_t n = MIN(sizeof r->device_descriptor, (size_t)s->length);
            memcpy(in, r->device_descriptor, n);
            return (int)n;
        }
        if (type == 0x02 && index == 0) {
            size_t n = MIN(r->configuration_length, (size_t)s->length);
            memcpy(in, r->configuration, n);
            return (int)n;
        }
        if (type == 0x03) {
            if (index == 0) {
                const uint8_t languages[4] = {4, 0x03, 0x09, 0x04}; /* en-US */
                size_t n = MIN(sizeof languages, (size_t)s->length);
                memcpy(in, languages, n);
                return (int)n;
            }
            if (index < 5 && r->strings[index] != NULL)
                return (int)emu_string_descriptor(r->strings[index], in, s->length);
        }
        return CCID_EMU_CONTROL_STALL; /* BOS, qualifier (full speed), unknown strings */
    case 0x00: /* GET_STATUS */
        if (s->length < 2)
            return CCID_EMU_CONTROL_STALL;
        in[0] = 0;
        in[1] = 0;
        if (recipient == 2 && (s->index & 0xff) != 0) {
            int slot = slot_for_endpoint(r, s->index & 0xff);
            if (slot < 0)
                return CCID_EMU_CONTROL_STALL;
            in[0] = r->halted[slot] ? 1 : 0;
        }
        return 2;
    case 0x08: /* GET_CONFIGURATION */
        if (s->length < 1)
            return CCID_EMU_CONTROL_STALL;
        in[0] = 1;
        return 1;
    case 0x0A: /* GET_INTERFACE */
        if (s->length < 1 || (s->index & 0xff) != 0)
            return CCID_EMU_CONTROL_STALL;
        in[0] = 0;
        return 1;
    case 0x09: /* SET_CONFIGURATION */
        return s->value <= 1 ? 0 : CCID_EMU_CONTROL_STALL;
    case 0x0B: /* SET_INTERFACE */
        return (s->index == 0 && s->value == 0) ? 0 : CCID_EMU_CONTROL_STALL;
    case 0x01: /* CLEAR_FEATURE */
    case 0x03: /* SET_FEATURE */
        if (recipient == 2 && s->value == 0) { /* ENDPOINT_HALT */
            int slot = slot_for_endpoint(r, s->index & 0xff);
            if (slot < 0)
                return CCID_EMU_CONTROL_STALL;
            r->halted[slot] = s->request == 0x03;
        }
        return 0;
    default:
        return CCID_EMU_CONTROL_STALL;
    }
}

/* Puts the answer to a control request into its URB or blocking ioctl (worker thread). */
static void finalize_control(ccid_emu_reader *r, control_entry *c, int result, const uint8_t *data, size_t length,
                             int failure_errno)
{
    const bool to_host = (c->setup.request_type & 0x80) != 0;
    if (c->urb != NULL) {
        if (failure_errno != 0) {
            finish_urb(c->urb, -failure_errno, 0);
        } else if (result < 0) {
            finish_urb(c->urb, -EPIPE, 0);
        } else if (to_host) {
            size_t n = MIN(MIN((size_t)result, length), (size_t)c->setup.length);
            if (n > 0)
                memcpy((uint8_t *)c->urb->buffer_data->data + 8, data, n);
            finish_urb(c->urb, 0, (int)n);
        } else {
            finish_urb(c->urb, 0, c->setup.length);
        }
        c->urb = NULL;
        r->stats.control_transfers++;
    } else if (c->sync_client != NULL) {
        long value;
        int err = 0;
        if (failure_errno != 0) {
            value = -1;
            err = failure_errno;
        } else if (result < 0) {
            value = -1;
            err = EPIPE;
        } else if (to_host) {
            size_t n = MIN(MIN((size_t)result, length), (size_t)c->setup.length);
            if (n > 0 && c->sync_data != NULL)
                memcpy(c->sync_data->data, data, n);
            value = (long)n;
        } else {
            value = c->setup.length;
        }
        r->stats.control_transfers++;
        umockdev_ioctl_client_complete(c->sync_client, value, err);
        g_clear_object(&c->sync_client);
        g_clear_object(&c->sync_data);
    }
}

static void control_entry_free(control_entry *c)
{
    urb_entry_free(c->urb);
    g_clear_object(&c->sync_client);
    g_clear_object(&c->sync_data);
    g_free(c->answer);
    g_free(c);
}

/* Completes a control transfer answered at once (`result` bytes of `answer`, or an error). */
static void complete_control_now(ccid_emu_reader *r, client_state *cs, const ccid_emu_setup_packet *setup,
                                 urb_entry *urb, UMockdevIoctlClient *sync_client, UMockdevIoctlData *sync_data,
                                 int result, const uint8_t *answer)
{
    control_entry c = {.owner = cs, .urb = urb, .sync_client = sync_client, .sync_data = sync_data, .setup = *setup};
    if (sync_client != NULL) {
        /* finalize_control completes and drops these; keep the caller's references */
        g_object_ref(sync_client);
        if (sync_data != NULL)
            g_object_ref(sync_data);
    }
    finalize_control(r, &c, result, answer, result > 0 ? (size_t)result : 0, 0);
}

/*
 * A control transfer. Standard requests are answered at once; class requests go to
 * on_control after the lock is released (`d`). Returns true when the request finished here
 * (a USBDEVFS_CONTROL ioctl is then completed by finalize_control).
 */
static bool handle_control(ccid_emu_reader *r, client_state *cs, const ccid_emu_setup_packet *setup,
                           const uint8_t *out, urb_entry *urb, UMockdevIoctlClient *sync_client,
                           UMockdevIoctlData *sync_data, deferred *d)
{
    const unsigned kind = setup->request_type & 0x60;
    if (kind == 0x00) {
        uint8_t answer[1024];
        ccid_emu_setup_packet s = *setup;
        s.length = (uint16_t)MIN((size_t)s.length, sizeof answer);
        int result = standard_request(r, &s, answer);
        complete_control_now(r, cs, setup, urb, sync_client, sync_data, result, answer);
        return true;
    }
    if (kind == 0x20) {
        control_entry *c = g_new0(control_entry, 1);
        c->token = ++r->next_token;
        c->owner = cs;
        c->urb = urb;
        c->sync_client = sync_client != NULL ? g_object_ref(sync_client) : NULL;
        c->sync_data = sync_data != NULL ? g_object_ref(sync_data) : NULL;
        c->setup = *setup;
        g_queue_push_tail(&r->controls, c);
        d->has_control = true;
        d->control_token = c->token;
        d->setup = *setup;
        if ((setup->request_type & 0x80) == 0 && setup->length > 0 && out != NULL) {
            d->control_out = g_memdup2(out, setup->length);
            d->control_out_length = setup->length;
        }
        return false;
    }
    if (kind == 0x40 && r->ftdi != NULL) {
        uint8_t answer[64];
        ccid_emu_setup_packet s = *setup;
        s.length = (uint16_t)MIN((size_t)s.length, sizeof answer);
        bool changed = false;
        int result = emu_ftdi_vendor_request(r, &s, answer, &changed);
        if (changed) {
            d->ftdi_line_changed = true;
            d->ftdi_line = r->ftdi->line;
        }
        complete_control_now(r, cs, setup, urb, sync_client, sync_data, result, answer);
        return true;
    }
    /* vendor and reserved requests stall */
    control_entry c = {.owner = cs, .urb = urb, .sync_client = sync_client, .sync_data = sync_data, .setup = *setup};
    if (sync_client != NULL) {
        g_object_ref(sync_client);
        if (sync_data != NULL)
            g_object_ref(sync_data);
    }
    finalize_control(r, &c, CCID_EMU_CONTROL_STALL, NULL, 0, 0);
    return true;
}

static control_entry *take_control(ccid_emu_reader *r, uint64_t token)
{
    for (GList *l = r->controls.head; l != NULL; l = l->next) {
        control_entry *c = l->data;
        if (c->token == token) {
            g_queue_delete_link(&r->controls, l);
            return c;
        }
    }
    return NULL;
}

/* Runs the callbacks a request produced, outside the state lock (worker thread). */
static void run_deferred(ccid_emu_reader *r, deferred *d)
{
    if (d->ftdi_line_changed) {
        g_mutex_lock(&r->callback_lock);
        if (r->callbacks_enabled && r->ftdi->on_line != NULL)
            r->ftdi->on_line(r->context, &d->ftdi_line);
        g_mutex_unlock(&r->callback_lock);
    }
    if (d->has_bulk_out) {
        g_mutex_lock(&r->callback_lock);
        if (r->callbacks_enabled && r->callbacks.on_bulk_out != NULL)
            r->callbacks.on_bulk_out(r->context, d->bulk_out, d->bulk_out_length);
        g_mutex_unlock(&r->callback_lock);
        g_free(d->bulk_out);
    }
    if (d->has_control) {
        uint8_t answer[4096];
        const size_t capacity = MIN((size_t)d->setup.length, sizeof answer);
        int result = CCID_EMU_CONTROL_STALL;
        g_mutex_lock(&r->callback_lock);
        if (r->callbacks_enabled && r->callbacks.on_control != NULL) {
            ccid_emu_setup_packet setup = d->setup;
            setup.length = (uint16_t)((setup.request_type & 0x80) ? capacity : setup.length);
            result = r->callbacks.on_control(r->context, &setup, d->control_out, d->control_out_length, answer,
                                             d->control_token);
        }
        g_mutex_unlock(&r->callback_lock);
        g_free(d->control_out);
        if (result != CCID_EMU_CONTROL_PENDING) {
            g_mutex_lock(&r->lock);
            control_entry *c = take_control(r, d->control_token);
            if (c != NULL) {
                size_t n = result > 0 ? MIN((size_t)result, capacity) : 0;
                finalize_control(r, c, result, answer, n, 0);
                control_entry_free(c);
            }
            pump_locked(r);
            g_mutex_unlock(&r->lock);
        }
    }
}

/* ---- URBs ---- */

/* Copies queued data into a pending IN URB. */
static void fill_urb(ccid_emu_reader *r, int slot, urb_entry *e)
{
    struct usbdevfs_urb *urb = urb_of(e);
    emu_message *m = g_queue_peek_head(&r->data[slot]);
    const size_t remaining = m->length - m->offset;
    const size_t capacity = urb->buffer_length > 0 ? (size_t)urb->buffer_length : 0;
    uint8_t *buffer = e->buffer_data != NULL ? (uint8_t *)e->buffer_data->data : NULL;
    int status = 0;
    size_t n;
    if (remaining <= capacity) {
        n = remaining;
        g_queue_pop_head(&r->data[slot]);
        if (n > 0)
            memcpy(buffer, m->data + m->offset, n);
        message_free(m);
    } else if (capacity > 0 && capacity % packet_size(slot) == 0) {
        /* whole packets fit: the rest of the message continues in the next URB */
        n = capacity;
        memcpy(buffer, m->data + m->offset, n);
        m->offset += n;
    } else {
        /* the device sent more than the buffer holds mid-packet: babble */
        n = capacity;
        if (n > 0)
            memcpy(buffer, m->data + m->offset, n);
        g_queue_pop_head(&r->data[slot]);
        message_free(m);
        status = -EOVERFLOW;
    }
    if (status == 0 && (urb->flags & USBDEVFS_URB_SHORT_NOT_OK) && n < capacity)
        status = -EREMOTEIO;
    if (slot == EP_BULK_IN)
        r->stats.bulk_in_transfers++;
    else
        r->stats.interrupt_transfers++;
    finish_urb(e, status, (int)n);
}

/* Hands a completed URB to a reap: the client's `struct usbdevfs_urb **` gets its address. */
static bool deliver_reap(ccid_emu_reader *r, client_state *cs, UMockdevIoctlData *arg)
{
    urb_entry *e = g_queue_pop_head(&cs->completed);
    GError *error = NULL;
    UMockdevIoctlData *p = umockdev_ioctl_data_resolve(arg, 0, sizeof(void *), &error);
    if (p == NULL) {
        g_clear_error(&error);
        urb_entry_free(e);
        return false;
    }
    umockdev_ioctl_data_set_ptr(p, 0, e->urb_data);
    g_object_unref(p);
    urb_entry_free(e);
    r->stats.urbs_reaped++;
    return true;
}

/*
 * Pairs pending IN URBs with queued data, completes everything an unplug or a halt ends,
 * finishes answered control requests and wakes blocked reaps. Worker thread, lock held.
 */
static void pump_locked(ccid_emu_reader *r)
{
    for (int slot = EP_BULK_IN; slot < EP_COUNT; slot++) {
        if (slot == EP_BULK_IN && r->ftdi != NULL && !r->gone && !r->halted[slot]) {
            emu_ftdi_pump_bulk_in(r); /* status bytes, packets, latency timer */
            continue;
        }
        while (!g_queue_is_empty(&r->pending[slot])) {
            urb_entry *e = g_queue_peek_head(&r->pending[slot]);
            if (r->gone) {
                g_queue_pop_head(&r->pending[slot]);
                finish_urb(e, -ENODEV, 0);
            } else if (r->halted[slot]) {
                g_queue_pop_head(&r->pending[slot]);
                finish_urb(e, -EPIPE, 0);
            } else if (!g_queue_is_empty(&r->data[slot])) {
                g_queue_pop_head(&r->pending[slot]);
                fill_urb(r, slot, e);
            } else {
                break;
            }
        }
    }
    for (GList *l = r->controls.head; l != NULL;) {
        GList *next = l->next;
        control_entry *c = l->data;
        if (c->answered || r->gone) {
            g_queue_delete_link(&r->controls, l);
            finalize_control(r, c, c->result, c->answer, c->answer_length, c->answered ? 0 : ENODEV);
            control_entry_free(c);
        }
        l = next;
    }
    for (guint i = 0; i < r->clients->len; i++) {
        client_state *cs = g_ptr_array_index(r->clients, i);
        if (cs->blocked_reap == NULL)
            continue;
        if (!g_queue_is_empty(&cs->completed)) {
            UMockdevIoctlData *arg = cs->blocked_reap;
            cs->blocked_reap = NULL;
            bool ok = deliver_reap(r, cs, arg);
            update_ready(r);
            umockdev_ioctl_client_complete(cs->client, ok ? 0 : -1, ok ? 0 : EFAULT);
            g_object_unref(arg);
        } else if (r->gone) {
            g_clear_object(&cs->blocked_reap);
            umockdev_ioctl_client_complete(cs->client, -1, ENODEV);
        }
    }
    update_ready(r);
}

void emu_pump_locked(ccid_emu_reader *r)
{
    pump_locked(r);
}

static gboolean pump_source(gpointer user_data)
{
    ccid_emu_reader *r = user_data;
    g_mutex_lock(&r->lock);
    r->pump_scheduled = false;
    pump_locked(r);
    g_mutex_unlock(&r->lock);
    return G_SOURCE_REMOVE;
}

/* Asks the worker thread to run the pump (host-side threads never touch URB memory). */
static void schedule_pump(ccid_emu_reader *r)
{
    GMainContext *worker = NULL;
    g_mutex_lock(&r->lock);
    if (r->worker != NULL && !r->pump_scheduled) {
        r->pump_scheduled = true;
        worker = g_main_context_ref(r->worker);
    }
    g_mutex_unlock(&r->lock);
    if (worker != NULL) {
        g_main_context_invoke(worker, pump_source, r);
        g_main_context_unref(worker);
    }
}

static void handle_submit(ccid_emu_reader *r, client_state *cs, UMockdevIoctlData *arg, UMockdevIoctlClient *client,
                          long *value, int *err, deferred *d)
{
    GError *error = NULL;
    UMockdevIoctlData *urb_data = umockdev_ioctl_data_resolve(arg, 0, sizeof(struct usbdevfs_urb), &error);
    if (urb_data == NULL) {
        g_clear_error(&error);
        *value = -1;
        *err = EFAULT;
        return;
    }
    struct usbdevfs_urb *urb = (struct usbdevfs_urb *)urb_data->data;
    int slot = -1;
    int problem = 0;
    if (urb->buffer_length < 0) {
        problem = EINVAL;
    } else if (urb->type == USBDEVFS_URB_TYPE_CONTROL) {
        if ((urb->endpoint & 0x7f) != 0)
            problem = ENOENT;
        else if (urb->buffer_length < 8)
            problem = EINVAL;
    } else if (urb->type == USBDEVFS_URB_TYPE_BULK || urb->type == USBDEVFS_URB_TYPE_INTERRUPT) {
        slot = slot_for_endpoint(r, urb->endpoint);
        if (slot < 0)
            problem = ENOENT;
    } else {
        problem = EINVAL; /* isochronous: no such endpoint here */
    }
    UMockdevIoctlData *buffer_data = NULL;
    if (problem == 0 && urb->buffer_length > 0) {
        buffer_data = umockdev_ioctl_data_resolve(urb_data, offsetof(struct usbdevfs_urb, buffer),
                                                  (gsize)urb->buffer_length, &error);
        if (buffer_data == NULL) {
            g_clear_error(&error);
            problem = EFAULT;
        }
    }
    urb_entry *e = g_new0(urb_entry, 1);
    e->owner = cs;
    e->urb_data = urb_data;
    e->buffer_data = buffer_data;
    e->slot = slot;
    if (problem == 0 && urb->type == USBDEVFS_URB_TYPE_CONTROL) {
        const uint8_t *b = buffer_data->data;
        ccid_emu_setup_packet setup = {
            .request_type = b[0],
            .request = b[1],
            .value = (uint16_t)(b[2] | b[3] << 8),
            .index = (uint16_t)(b[4] | b[5] << 8),
            .length = (uint16_t)(b[6] | b[7] << 8),
        };
        if ((size_t)urb->buffer_length < 8 + (size_t)setup.length)
            problem = EINVAL;
        else
            problem = check_control_recipient(r, cs, &setup);
        if (problem == 0) {
            r->stats.urbs_submitted++;
            handle_control(r, cs, &setup, b + 8, e, NULL, NULL, d);
            *value = 0;
            return;
        }
    } else if (problem == 0) {
        problem = check_interface(r, cs);
    }
    if (problem != 0) {
        urb_entry_free(e);
        *value = -1;
        *err = problem;
        return;
    }
    (void)client;
    r->stats.urbs_submitted++;
    if (slot == EP_BULK_OUT) {
        if (r->halted[EP_BULK_OUT]) {
            finish_urb(e, -EPIPE, 0);
        } else {
            d->has_bulk_out = true;
            d->bulk_out_length = (size_t)urb->buffer_length;
            d->bulk_out = d->bulk_out_length > 0 ? g_memdup2(buffer_data->data, d->bulk_out_length) : NULL;
            r->stats.bulk_out_transfers++;
            finish_urb(e, 0, urb->buffer_length);
        }
    } else {
        g_queue_push_tail(&r->pending[slot], e);
    }
    *value = 0;
}

static void handle_discard(ccid_emu_reader *r, client_state *cs, UMockdevIoctlData *arg, long *value, int *err)
{
    /* DISCARDURB's argument is the client's URB pointer itself. */
    gulong address = 0;
    memcpy(&address, arg->data, MIN(sizeof address, (size_t)arg->data_len));
    for (int slot = EP_BULK_IN; slot < EP_COUNT; slot++) {
        for (GList *l = r->pending[slot].head; l != NULL; l = l->next) {
            urb_entry *e = l->data;
            if (e->owner == cs && e->urb_data->client_addr == address) {
                g_queue_delete_link(&r->pending[slot], l);
                finish_urb(e, -ENOENT, 0);
                *value = 0;
                return;
            }
        }
    }
    for (GList *l = r->controls.head; l != NULL; l = l->next) {
        control_entry *c = l->data;
        if (c->owner == cs && c->urb != NULL && c->urb->urb_data->client_addr == address) {
            g_queue_delete_link(&r->controls, l);
            finish_urb(c->urb, -ENOENT, 0);
            c->urb = NULL;
            control_entry_free(c);
            *value = 0;
            return;
        }
    }
    *value = -1;
    *err = EINVAL; /* already completed: libusb then reaps it */
}

static UMockdevIoctlData *resolve_arg(UMockdevIoctlData *arg, gsize size)
{
    GError *error = NULL;
    UMockdevIoctlData *data = umockdev_ioctl_data_resolve(arg, 0, size, &error);
    g_clear_error(&error);
    return data;
}

static void unsigned_arg(UMockdevIoctlData *arg, unsigned *out, bool *ok)
{
    UMockdevIoctlData *d = resolve_arg(arg, sizeof(unsigned));
    *ok = d != NULL;
    if (d != NULL) {
        memcpy(out, d->data, sizeof(unsigned));
        g_object_unref(d);
    }
}

/*
 * read() on a usbfs node returns the device descriptor and then the configuration descriptors,
 * from the file position, as the kernel's usbdev_read does. libusb 0.1 (Debian's libusb-0.1-4,
 * which libnfc's acr122_usb and pn53x_usb drivers use) enumerates that way, instead of through
 * sysfs like libusb 1.0. Without this umockdev runs the read on our FIFO node: it returned the
 * one-byte poll token (device skipped: "0 device(s) found") and then blocked (the hang).
 */
static gboolean on_handle_read(UMockdevIoctlBase *base, UMockdevIoctlClient *client, gpointer user_data)
{
    (void)base;
    ccid_emu_reader *r = user_data;
    UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
    long value = 0;
    int err = 0;
    g_mutex_lock(&r->lock);
    capture_worker_locked(r);
    client_state *cs = client_for(r, client);
    if (r->gone) {
        value = -1;
        err = ENODEV;
    } else {
        const size_t total = sizeof r->device_descriptor + r->configuration_length;
        const size_t wanted = arg->data_len > 0 ? (size_t)arg->data_len : 0;
        const size_t start = MIN(cs->read_offset, total);
        const size_t n = MIN(wanted, total - start);
        uint8_t *bytes = g_malloc(n > 0 ? n : 1);
        for (size_t i = 0; i < n; i++) {
            const size_t at = start + i;
            bytes[i] = at < sizeof r->device_descriptor ? r->device_descriptor[at]
                                                         : r->configuration[at - sizeof r->device_descriptor];
        }
        if (n > 0)
            umockdev_ioctl_data_update(arg, 0, bytes, (gint)n);
        g_free(bytes);
        cs->read_offset = start + n;
        value = (long)n;
    }
    g_mutex_unlock(&r->lock);
    umockdev_ioctl_client_complete(client, value, err);
    return TRUE;
}

static gboolean on_handle_ioctl(UMockdevIoctlBase *base, UMockdevIoctlClient *client, gpointer user_data)
{
    (void)base;
    ccid_emu_reader *r = user_data;
    const gulong request = umockdev_ioctl_client_get_request(client);
    UMockdevIoctlData *arg = umockdev_ioctl_client_get_arg(client);
    deferred d = {0};
    long value = 0;
    int err = 0;
    bool complete = true;

    g_mutex_lock(&r->lock);
    capture_worker_locked(r);
    client_state *cs = client_for(r, client);
    r->stats.ioctls++;
    const bool is_reap = request == USBDEVFS_REAPURB || request == USBDEVFS_REAPURBNDELAY;

    if (r->gone && !is_reap) {
        value = -1;
        err = ENODEV;
    } else if (is_reap) {
        if (!g_queue_is_empty(&cs->completed)) {
            if (!deliver_reap(r, cs, arg)) {
                value = -1;
                err = EFAULT;
            }
        } else if (r->gone) {
            value = -1;
            err = ENODEV;
        } else if (request == USBDEVFS_REAPURB) {
            cs->blocked_reap = g_object_ref(arg);
            complete = false;
        } else {
            r->stats.empty_reaps++;
            value = -1;
            err = EAGAIN;
        }
    } else if (request == USBDEVFS_SUBMITURB) {
        handle_submit(r, cs, arg, client, &value, &err, &d);
    } else if (request == USBDEVFS_DISCARDURB) {
        handle_discard(r, cs, arg, &value, &err);
    } else if (request == USBDEVFS_GET_CAPABILITIES) {
        UMockdevIoctlData *caps = resolve_arg(arg, sizeof(guint32));
        if (caps != NULL) {
            guint32 v = CAPABILITIES;
            memcpy(caps->data, &v, sizeof v);
            g_object_unref(caps);
        } else {
            value = -1;
            err = EFAULT;
        }
    } else if (request == USBDEVFS_CLAIMINTERFACE || request == USBDEVFS_RELEASEINTERFACE) {
        unsigned number = 0;
        bool ok;
        unsigned_arg(arg, &number, &ok);
        if (!ok) {
            err = EFAULT;
        } else if (number >= 32) {
            err = EINVAL;
        } else if (request == USBDEVFS_CLAIMINTERFACE) {
            err = number != 0 ? ENOENT : check_interface(r, cs);
        } else if (number != 0 || r->owner != cs) {
            err = EINVAL;
        } else {
            kill_client_urbs(r, cs);
            r->owner = NULL;
        }
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_DISCONNECT_CLAIM) {
        UMockdevIoctlData *dc_data = resolve_arg(arg, sizeof(struct usbdevfs_disconnect_claim));
        if (dc_data == NULL) {
            err = EFAULT;
        } else {
            struct usbdevfs_disconnect_claim *dc = (void *)dc_data->data;
            dc->driver[sizeof dc->driver - 1] = '\0';
            if (dc->interface != 0) {
                err = ENOENT;
            } else if (r->owner != NULL) {
                /* bound to "usbfs" (someone's claim): only IF_DRIVER "usbfs" would detach it,
                   and usbfs claims are not detachable */
                err = EBUSY;
            } else {
                r->owner = cs; /* no kernel driver bound: nothing to detach */
            }
            g_object_unref(dc_data);
        }
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_GETDRIVER) {
        UMockdevIoctlData *gd_data = resolve_arg(arg, sizeof(struct usbdevfs_getdriver));
        if (gd_data == NULL) {
            err = EFAULT;
        } else {
            struct usbdevfs_getdriver *gd = (void *)gd_data->data;
            if (gd->interface != 0)
                err = EINVAL;
            else if (r->owner == NULL)
                err = ENODATA; /* no driver bound */
            else
                g_strlcpy(gd->driver, "usbfs", sizeof gd->driver);
            g_object_unref(gd_data);
        }
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_IOCTL) {
        UMockdevIoctlData *io_data = resolve_arg(arg, sizeof(struct usbdevfs_ioctl));
        if (io_data == NULL) {
            err = EFAULT;
        } else {
            struct usbdevfs_ioctl *io = (void *)io_data->data;
            if (io->ifno != 0)
                err = EINVAL;
            else if (io->ioctl_code == (int)USBDEVFS_DISCONNECT)
                err = r->owner == NULL ? ENODATA : EBUSY; /* no kernel driver; usbfs not detachable */
            else if (io->ioctl_code == (int)USBDEVFS_CONNECT)
                err = (r->owner == NULL || r->owner == cs) ? 0 : EBUSY; /* no driver wants it */
            else
                err = ENOTTY;
            g_object_unref(io_data);
        }
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_SETINTERFACE) {
        UMockdevIoctlData *si_data = resolve_arg(arg, sizeof(struct usbdevfs_setinterface));
        if (si_data == NULL) {
            err = EFAULT;
        } else {
            struct usbdevfs_setinterface *si = (void *)si_data->data;
            if (si->interface != 0)
                err = EINVAL;
            else if ((err = check_interface(r, cs)) == 0 && si->altsetting != 0)
                err = EINVAL;
            if (err == 0)
                memset(r->halted, 0, sizeof r->halted);
            g_object_unref(si_data);
        }
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_SETCONFIGURATION) {
        unsigned configuration = 0;
        bool ok;
        unsigned_arg(arg, &configuration, &ok);
        if (!ok)
            err = EFAULT;
        else if ((int)configuration > 1)
            err = EINVAL;
        else if (r->owner != NULL && r->owner != cs)
            err = EBUSY;
        else
            memset(r->halted, 0, sizeof r->halted);
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_CLEAR_HALT || request == USBDEVFS_RESETEP) {
        unsigned endpoint = 0;
        bool ok;
        unsigned_arg(arg, &endpoint, &ok);
        int slot = ok ? slot_for_endpoint(r, endpoint) : -1;
        if (!ok)
            err = EFAULT;
        else if (slot < 0)
            err = ENOENT;
        else if ((err = check_interface(r, cs)) == 0)
            r->halted[slot] = false;
        value = err != 0 ? -1 : 0;
    } else if (request == USBDEVFS_RESET) {
        /* The device keeps its state; endpoints come back un-halted. */
        memset(r->halted, 0, sizeof r->halted);
    } else if (request == USBDEVFS_CONTROL) {
        UMockdevIoctlData *ct_data = resolve_arg(arg, sizeof(struct usbdevfs_ctrltransfer));
        if (ct_data == NULL) {
            value = -1;
            err = EFAULT;
        } else {
            struct usbdevfs_ctrltransfer *ct = (void *)ct_data->data;
            ccid_emu_setup_packet setup = {ct->bRequestType, ct->bRequest, ct->wValue, ct->wIndex, ct->wLength};
            UMockdevIoctlData *data = NULL;
            GError *error = NULL;
            if (setup.length > 0) {
                data = umockdev_ioctl_data_resolve(ct_data, offsetof(struct usbdevfs_ctrltransfer, data), setup.length,
                                                   &error);
                g_clear_error(&error);
            }
            if (setup.length > 0 && data == NULL) {
                value = -1;
                err = EFAULT;
            } else if ((err = check_control_recipient(r, cs, &setup)) != 0) {
                value = -1;
            } else {
                /* finalize_control completes the ioctl itself */
                handle_control(r, cs, &setup, data != NULL ? data->data : NULL, NULL, client, data, &d);
                complete = false;
            }
            g_clear_object(&data);
            g_object_unref(ct_data);
        }
    } else if (request == USBDEVFS_CONNECTINFO) {
        UMockdevIoctlData *ci_data = resolve_arg(arg, sizeof(struct usbdevfs_connectinfo));
        if (ci_data != NULL) {
            struct usbdevfs_connectinfo *ci = (void *)ci_data->data;
            ci->devnum = (unsigned)r->address;
            ci->slow = 0;
            g_object_unref(ci_data);
        } else {
            value = -1;
            err = EFAULT;
        }
    } else if (_IOC_TYPE(request) == 'U' && _IOC_NR(request) == 32) { /* USBDEVFS_CONNINFO_EX(len) */
        struct usbdevfs_conninfo_ex info = {
            .size = sizeof info, .busnum = (unsigned)r->bus, .devnum = (unsigned)r->address,
            .speed = EMU_SPEED_FULL, .num_ports = 1, .ports = {(uint8_t)(r->address - 1)},
        };
        gsize size = MIN((gsize)_IOC_SIZE(request), sizeof info);
        UMockdevIoctlData *ci_data = resolve_arg(arg, size);
        if (ci_data != NULL) {
            memcpy(ci_data->data, &info, size);
            g_object_unref(ci_data);
        } else {
            value = -1;
            err = EFAULT;
        }
    } else if (request == USBDEVFS_GET_SPEED) {
        value = EMU_SPEED_FULL;
    } else if (request == USBDEVFS_DROP_PRIVILEGES || request == USBDEVFS_FORBID_SUSPEND ||
               request == USBDEVFS_ALLOW_SUSPEND || request == USBDEVFS_WAIT_FOR_RESUME ||
               request == USBDEVFS_DISCSIGNAL) {
        value = 0;
    } else if (request == USBDEVFS_ALLOC_STREAMS || request == USBDEVFS_FREE_STREAMS) {
        value = -1;
        err = EINVAL; /* not a USB 3 device */
    } else {
        g_debug("%s: unhandled ioctl 0x%lx", r->devnode, request);
        r->stats.unknown_ioctls++;
        value = -1;
        err = ENOTTY;
    }

    pump_locked(r);
    g_mutex_unlock(&r->lock);
    if (complete)
        umockdev_ioctl_client_complete(client, value, err);
    run_deferred(r, &d);
    return TRUE;
}

/* ---- host side ---- */

static int push(ccid_emu_reader *r, int slot, const uint8_t *data, size_t length)
{
    g_mutex_lock(&r->lock);
    if (r->gone) {
        g_mutex_unlock(&r->lock);
        return -ENODEV;
    }
    emu_message *m = g_new0(emu_message, 1);
    m->data = length > 0 ? g_memdup2(data, length) : NULL;
    m->length = length;
    g_queue_push_tail(&r->data[slot], m);
    g_mutex_unlock(&r->lock);
    schedule_pump(r);
    return 0;
}

int ccid_emu_reader_push_bulk_in(ccid_emu_reader *r, const uint8_t *data, size_t length)
{
    return push(r, EP_BULK_IN, data, length);
}

int ccid_emu_reader_push_interrupt(ccid_emu_reader *r, const uint8_t *data, size_t length)
{
    if (!r->has_interrupt)
        return -ENOENT;
    return push(r, EP_INTERRUPT, data, length);
}

int ccid_emu_reader_stall_bulk_in(ccid_emu_reader *r)
{
    g_mutex_lock(&r->lock);
    if (r->gone) {
        g_mutex_unlock(&r->lock);
        return -ENODEV;
    }
    r->halted[EP_BULK_IN] = true;
    g_mutex_unlock(&r->lock);
    schedule_pump(r);
    return 0;
}

int ccid_emu_reader_complete_control(ccid_emu_reader *r, uint64_t token, int result, const uint8_t *data,
                                     size_t length)
{
    g_mutex_lock(&r->lock);
    control_entry *found = NULL;
    for (GList *l = r->controls.head; l != NULL; l = l->next) {
        control_entry *c = l->data;
        if (c->token == token && !c->answered) {
            found = c;
            break;
        }
    }
    if (found == NULL) {
        g_mutex_unlock(&r->lock);
        return -ENOENT;
    }
    found->answered = true;
    found->result = result;
    if (result > 0 && data != NULL) {
        found->answer_length = MIN((size_t)result, length);
        found->answer = g_memdup2(data, found->answer_length);
    }
    g_mutex_unlock(&r->lock);
    schedule_pump(r);
    return 0;
}

typedef struct worker_call {
    ccid_emu_reader *reader;
    GMutex mutex;
    GCond cond;
    bool done;
} worker_call;

static gboolean kill_on_worker(gpointer user_data)
{
    worker_call *call = user_data;
    ccid_emu_reader *r = call->reader;
    g_mutex_lock(&r->lock);
    pump_locked(r); /* gone: every pending URB and control request ends with -ENODEV */
    g_mutex_unlock(&r->lock);
    g_mutex_lock(&call->mutex);
    call->done = true;
    g_cond_signal(&call->cond);
    g_mutex_unlock(&call->mutex);
    return G_SOURCE_REMOVE;
}

typedef struct remove_job {
    ccid_emu_reader *reader;
} remove_job;

static void remove_records_job(ccid_emu_bed *bed, void *data)
{
    remove_job *job = data;
    emu_reader_remove_records(bed, job->reader);
}

void ccid_emu_reader_unplug(ccid_emu_reader *r)
{
    g_mutex_lock(&r->unplug_lock);
    if (r->removed) {
        g_mutex_unlock(&r->unplug_lock);
        return;
    }
    g_mutex_lock(&r->lock);
    r->gone = true;
    GMainContext *worker = r->worker != NULL ? g_main_context_ref(r->worker) : NULL;
    g_mutex_unlock(&r->lock);

    /* 1. pending URBs complete with -ENODEV, on the worker thread that owns URB memory */
    if (worker != NULL) {
        worker_call *call = g_new0(worker_call, 1);
        call->reader = r;
        g_mutex_init(&call->mutex);
        g_cond_init(&call->cond);
        g_main_context_invoke(worker, kill_on_worker, call);
        g_mutex_lock(&call->mutex);
        const gint64 deadline = g_get_monotonic_time() + 5 * G_TIME_SPAN_SECOND;
        while (!call->done) {
            if (!g_cond_wait_until(&call->cond, &call->mutex, deadline))
                break;
        }
        bool finished = call->done;
        g_mutex_unlock(&call->mutex);
        if (finished) {
            g_mutex_clear(&call->mutex);
            g_cond_clear(&call->cond);
            g_free(call);
        } else {
            /* leave the record to the late callback rather than free it under it */
            g_warning("%s: umockdev's worker thread did not answer the unplug", r->devnode);
        }
        g_main_context_unref(worker);
    }

    /* 2. "remove" uevents, sysfs records, device node */
    remove_job job = {.reader = r};
    emu_run_on_control_thread(r->bed, remove_records_job, &job);
    r->removed = true;
    g_mutex_unlock(&r->unplug_lock);
}

int ccid_emu_reader_is_unplugged(const ccid_emu_reader *r)
{
    ccid_emu_reader *m = (ccid_emu_reader *)r;
    g_mutex_lock(&m->lock);
    int gone = m->gone ? 1 : 0;
    g_mutex_unlock(&m->lock);
    return gone;
}

void ccid_emu_reader_close(ccid_emu_reader *r)
{
    ccid_emu_reader_unplug(r);
    g_mutex_lock(&r->callback_lock);
    r->callbacks_enabled = false;
    g_mutex_unlock(&r->callback_lock);
}

void ccid_emu_reader_get_stats(const ccid_emu_reader *r, ccid_emu_reader_stats *stats)
{
    ccid_emu_reader *m = (ccid_emu_reader *)r;
    g_mutex_lock(&m->lock);
    *stats = m->stats;
    g_mutex_unlock(&m->lock);
}

int ccid_emu_reader_bus_number(const ccid_emu_reader *r)
{
    return r->bus;
}

int ccid_emu_reader_device_address(const ccid_emu_reader *r)
{
    return r->address;
}

const char *ccid_emu_reader_sysfs_path(const ccid_emu_reader *r)
{
    return r->syspath;
}

const char *ccid_emu_reader_device_node(const ccid_emu_reader *r)
{
    return r->devnode;
}

/* ---- creation and sysfs records ---- */

/* Escapes a value for an "A:" line (umockdev unescapes \\ and \n). */
static void append_attribute(GString *s, const char *key, const char *value)
{
    if (value == NULL || *value == '\0')
        return;
    g_string_append_printf(s, "A: %s=", key);
    for (const char *p = value; *p != '\0'; p++) {
        if (*p == '\\')
            g_string_append(s, "\\\\");
        else if (*p == '\n')
            g_string_append(s, "\\n");
        else
            g_string_append_c(s, *p);
    }
    g_string_append_c(s, '\n');
}

/* udev-style encoding for an "E:" line: printable ASCII without blanks. */
static char *property_value(const char *value)
{
    char *s = g_strdup(value);
    for (char *p = s; *p != '\0'; p++) {
        if (*p <= ' ' || *p > '~')
            *p = '_';
    }
    return s;
}

static char *reader_record(const ccid_emu_reader *r, const ccid_emu_reader_info *info)
{
    const int port = r->address - 1;
    char *hex_device = emu_hex(r->device_descriptor, sizeof r->device_descriptor);
    char *hex_config = emu_hex(r->configuration, r->configuration_length);
    char product[32];
    g_snprintf(product, sizeof product, "%x/%x/%x", info->vendor_id, info->product_id, info->bcd_device);
    GString *s = g_string_new(NULL);

    /* the usb_device */
    g_string_append_printf(s, "P: " ROOT_PARENT "/usb%d/%d-%d\n", r->bus, r->bus, port);
    g_string_append(s, "E: SUBSYSTEM=usb\nE: DEVTYPE=usb_device\n");
    /* No "N:" line: umockdev would make the node a regular file; ours is the FIFO. */
    g_string_append_printf(s, "E: DEVNAME=%s\nE: BUSNUM=%03d\nE: DEVNUM=%03d\n", r->devnode, r->bus, r->address);
    g_string_append_printf(s, "E: PRODUCT=%s\nE: TYPE=0/0/0\n", product);
    g_string_append_printf(s, "E: ID_VENDOR_ID=%04x\nE: ID_MODEL_ID=%04x\nE: ID_REVISION=%04x\n", info->vendor_id,
                           info->product_id, info->bcd_device);
    const unsigned ic = r->interface_class;
    const unsigned isc = ic == 0xFF ? 0xFF : 0; /* FTDI: vendor class, subclass and protocol */
    g_string_append_printf(s, "E: ID_BUS=usb\nE: ID_USB_INTERFACES=:%02x%02x%02x:\n", ic, isc, isc);
    if (r->strings[3] != NULL) {
        char *serial = property_value(r->strings[3]);
        g_string_append_printf(s, "E: ID_SERIAL_SHORT=%s\n", serial);
        g_free(serial);
    }
    g_string_append_printf(s, "A: busnum=%d\nA: devnum=%d\nA: devpath=%d\n", r->bus, r->address, port);
    g_string_append(s, "A: speed=12\nA: version= 2.00\n");
    g_string_append_printf(s, "A: idVendor=%04x\nA: idProduct=%04x\nA: bcdDevice=%04x\n", info->vendor_id,
                           info->product_id, info->bcd_device);
    g_string_append(s, "A: bDeviceClass=00\nA: bDeviceSubClass=00\nA: bDeviceProtocol=00\n"
                       "A: bNumConfigurations=1\nA: bNumInterfaces= 1\n"
                       "A: bConfigurationValue=1\nA: bmAttributes=80\nA: bMaxPower=100mA\n"
                       "A: authorized=1\nA: removable=removable\nA: maxchild=0\n");
    g_string_append_printf(s, "A: bMaxPacketSize0=%u\n", r->device_descriptor[7]);
    append_attribute(s, "manufacturer", r->strings[1]);
    append_attribute(s, "product", r->strings[2]);
    append_attribute(s, "serial", r->strings[3]);
    g_string_append_printf(s, "H: descriptors=%s%s\n\n", hex_device, hex_config);

    /* its usb_interface, which pcscd's hotplug watches for */
    g_string_append_printf(s, "P: " ROOT_PARENT "/usb%d/%d-%d/%d-%d:1.0\n", r->bus, r->bus, port, r->bus, port);
    g_string_append(s, "E: SUBSYSTEM=usb\nE: DEVTYPE=usb_interface\n");
    g_string_append_printf(s, "E: PRODUCT=%s\nE: TYPE=0/0/0\nE: INTERFACE=%u/%u/%u\n", product, ic, isc, isc);
    g_string_append_printf(s, "E: MODALIAS=usb:v%04Xp%04Xd%04Xdc00dsc00dp00ic%02Xisc%02Xip%02Xin00\n", info->vendor_id,
                           info->product_id, info->bcd_device, ic, isc, isc);
    g_string_append_printf(s, "A: bInterfaceNumber=00\nA: bAlternateSetting= 0\nA: bInterfaceClass=%02x\n"
                              "A: bInterfaceSubClass=%02x\nA: bInterfaceProtocol=%02x\nA: bNumEndpoints=%02x\n"
                              "A: supports_autosuspend=0\nA: authorized=1\n",
                           ic, isc, isc, r->has_interrupt ? 3 : 2);
    append_attribute(s, "interface", r->strings[4]);

    g_free(hex_device);
    g_free(hex_config);
    char *raw = g_string_free(s, FALSE);
    char *record = emu_terminate_attributes(raw);
    g_free(raw);
    return record;
}

typedef struct add_job {
    ccid_emu_reader *reader;
    const char *record;
    char *error;
} add_job;

static void add_records_job(ccid_emu_bed *bed, void *data)
{
    add_job *job = data;
    GError *error = NULL;
    /* Attach the handler before the device exists: a client may open the node as soon as it
       sees the uevent (umockdev issue #173). */
    if (!umockdev_testbed_attach_ioctl(bed->testbed, job->reader->devnode, job->reader->handler, &error)) {
        job->error = emu_strdup_error("cannot attach the ioctl handler to %s: %s", job->reader->devnode,
                                      error->message);
        g_error_free(error);
        return;
    }
    /* add_from_string emits an "add" uevent for each record */
    if (!umockdev_testbed_add_from_string(bed->testbed, job->record, &error)) {
        job->error = emu_strdup_error("cannot add %s: %s", job->reader->syspath, error->message);
        g_error_free(error);
    }
}

void emu_reader_remove_records(ccid_emu_bed *bed, ccid_emu_reader *r)
{
    /* umockdev 0.17.16's remove_device sends no uevent: send "remove" first, interface before
       device, as the kernel does. The ioctl handler stays attached until the bed goes, because
       clients may still hold the node open. */
    umockdev_testbed_uevent(bed->testbed, r->interface_syspath, "remove");
    umockdev_testbed_uevent(bed->testbed, r->syspath, "remove");
    umockdev_testbed_remove_device(bed->testbed, r->interface_syspath);
    umockdev_testbed_remove_device(bed->testbed, r->syspath);
    if (unlink(r->fifo_path) != 0 && errno != ENOENT)
        g_debug("cannot remove %s: %s", r->fifo_path, g_strerror(errno));
}

static bool open_fifo(ccid_emu_reader *r, char **error)
{
    char *directory = g_path_get_dirname(r->fifo_path);
    int made = g_mkdir_with_parents(directory, 0755);
    g_free(directory);
    if (made != 0 || mkfifo(r->fifo_path, 0666) != 0) {
        if (error != NULL)
            *error = emu_strdup_error("cannot create the device node %s: %s", r->fifo_path, g_strerror(errno));
        return false;
    }
    /* O_NONBLOCK everywhere: a blocking open() in a preloaded process holds umockdev's path
       lock and would stall every other file operation. */
    r->fifo_read_fd = open(r->fifo_path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    r->fifo_write_fd = r->fifo_read_fd >= 0 ? open(r->fifo_path, O_WRONLY | O_NONBLOCK | O_CLOEXEC) : -1;
    if (r->fifo_read_fd < 0 || r->fifo_write_fd < 0) {
        if (error != NULL)
            *error = emu_strdup_error("cannot open the device node %s: %s", r->fifo_path, g_strerror(errno));
        return false;
    }
    /* one page holds one pipe slot: a single byte makes the pipe full, i.e. not POLLOUT */
    (void)fcntl(r->fifo_write_fd, F_SETPIPE_SZ, (int)sysconf(_SC_PAGESIZE));
    return true;
}

static char *nonempty(const char *s)
{
    return (s != NULL && *s != '\0') ? g_strdup(s) : NULL;
}

ccid_emu_reader *emu_reader_new(ccid_emu_bed *bed, int bus, int address, const ccid_emu_reader_info *info,
                                const ccid_emu_callbacks *callbacks, void *context,
                                const ccid_emu_ftdi_callbacks *ftdi, char **error)
{
    ccid_emu_reader *r = g_new0(ccid_emu_reader, 1);
    r->bed = bed;
    r->bus = bus;
    r->address = address;
    r->fifo_read_fd = -1;
    r->fifo_write_fd = -1;
    g_mutex_init(&r->lock);
    g_mutex_init(&r->unplug_lock);
    g_mutex_init(&r->callback_lock);
    r->clients = g_ptr_array_new();
    for (int i = 0; i < EP_COUNT; i++) {
        g_queue_init(&r->pending[i]);
        g_queue_init(&r->data[i]);
    }
    g_queue_init(&r->controls);
    if (callbacks != NULL)
        r->callbacks = *callbacks;
    r->context = context;
    r->callbacks_enabled = true;
    r->has_interrupt = ftdi == NULL && info->has_interrupt_endpoint != 0;
    r->ep_out = ftdi != NULL ? 0x02 : CCID_EMU_ENDPOINT_BULK_OUT;
    r->ep_in = ftdi != NULL ? 0x81 : CCID_EMU_ENDPOINT_BULK_IN;
    r->interface_class = ftdi != NULL ? 0xFF : 0x0B;
    r->ftdi = ftdi != NULL ? emu_ftdi_new(ftdi) : NULL;

    const int port = address - 1;
    r->syspath = g_strdup_printf("/sys" ROOT_PARENT "/usb%d/%d-%d", bus, bus, port);
    r->interface_syspath = g_strdup_printf("%s/%d-%d:1.0", r->syspath, bus, port);
    r->devnode = g_strdup_printf("/dev/bus/usb/%03d/%03d", bus, address);
    r->fifo_path = g_strdup_printf("%s%s", bed->root_dir, r->devnode);

    r->strings[1] = g_strdup(info->manufacturer != NULL ? info->manufacturer : "");
    r->strings[2] = g_strdup(info->product != NULL ? info->product : "");
    r->strings[3] = nonempty(info->serial_number);
    r->strings[4] = nonempty(info->interface_name);
    if (r->ftdi != NULL) {
        emu_ftdi_build_descriptors(info, r->strings[3] != NULL, r->device_descriptor, &r->configuration,
                                   &r->configuration_length);
    } else {
        emu_build_device_descriptor(r->device_descriptor, info, r->strings[3] != NULL);
        r->configuration = emu_build_configuration(info, r->strings[4] != NULL, &r->configuration_length);
    }

    r->handler = umockdev_ioctl_base_new();
    g_signal_connect(r->handler, "handle-ioctl", G_CALLBACK(on_handle_ioctl), r);
    g_signal_connect(r->handler, "handle-read", G_CALLBACK(on_handle_read), r);
    g_signal_connect(r->handler, "client-connected", G_CALLBACK(on_client_connected), r);
    g_signal_connect(r->handler, "client-vanished", G_CALLBACK(on_client_vanished), r);

    if (!open_fifo(r, error)) {
        unlink(r->fifo_path);
        r->removed = true;
        emu_reader_free(r);
        return NULL;
    }
    g_mutex_lock(&r->lock);
    update_ready(r);
    g_mutex_unlock(&r->lock);

    char *record = reader_record(r, info);
    add_job job = {.reader = r, .record = record};
    emu_run_on_control_thread(bed, add_records_job, &job);
    g_free(record);
    if (job.error != NULL) {
        if (error != NULL)
            *error = job.error;
        else
            free(job.error);
        /* the handler may be attached: keep the object alive with the bed, marked unplugged */
        g_mutex_lock(&r->lock);
        r->gone = true;
        g_mutex_unlock(&r->lock);
        unlink(r->fifo_path);
        r->removed = true;
        r->callbacks_enabled = false;
        g_mutex_lock(&bed->lock);
        g_ptr_array_add(bed->readers, r);
        g_mutex_unlock(&bed->lock);
        return NULL;
    }
    return r;
}

void emu_reader_free(ccid_emu_reader *r)
{
    if (r->handler != NULL) {
        g_signal_handlers_disconnect_by_data(r->handler, r);
        g_clear_object(&r->handler);
    }
    while (r->clients->len > 0) {
        client_state *cs = g_ptr_array_index(r->clients, r->clients->len - 1);
        client_dropped(r, cs->client);
    }
    g_ptr_array_free(r->clients, TRUE);
    for (int i = 0; i < EP_COUNT; i++) {
        urb_entry *e;
        while ((e = g_queue_pop_head(&r->pending[i])) != NULL)
            urb_entry_free(e);
        g_queue_clear_full(&r->data[i], message_free);
    }
    emu_ftdi_free(r->ftdi);
    control_entry *c;
    while ((c = g_queue_pop_head(&r->controls)) != NULL)
        control_entry_free(c);
    if (r->fifo_read_fd >= 0)
        close(r->fifo_read_fd);
    if (r->fifo_write_fd >= 0)
        close(r->fifo_write_fd);
    if (r->worker != NULL)
        g_main_context_unref(r->worker);
    for (int i = 0; i < 5; i++)
        g_free(r->strings[i]);
    g_free(r->configuration);
    g_free(r->syspath);
    g_free(r->interface_syspath);
    g_free(r->devnode);
    g_free(r->fifo_path);
    g_mutex_clear(&r->lock);
    g_mutex_clear(&r->unplug_lock);
    g_mutex_clear(&r->callback_lock);
    g_free(r);
}
