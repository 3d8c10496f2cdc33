/*
 * An FTDI FT232R-like USB-serial bridge: descriptors, the chip's vendor requests and its
 * bulk-IN framing. Written from FTDI's and libftdi1's documented behaviour (libftdi's ftdi.h
 * request and value definitions and its doc comments; FTDI AN232B-05 for the baud divisor),
 * not from any client in this package.
 */
#include "ccid_emu_private.h"

#include <sys/ioctl.h>
#include <linux/usbdevice_fs.h>

#include <errno.h>
#include <string.h>

/* Vendor requests (libftdi ftdi.h SIO_*_REQUEST). */
enum {
    SIO_RESET = 0x00,
    SIO_MODEM_CTRL = 0x01,
    SIO_SET_FLOW_CTRL = 0x02,
    SIO_SET_BAUD_RATE = 0x03,
    SIO_SET_DATA = 0x04,
    SIO_POLL_MODEM_STATUS = 0x05,
    SIO_SET_EVENT_CHAR = 0x06,
    SIO_SET_ERROR_CHAR = 0x07,
    SIO_SET_LATENCY_TIMER = 0x09,
    SIO_GET_LATENCY_TIMER = 0x0A,
    SIO_SET_BITMODE = 0x0B,
    SIO_READ_PINS = 0x0C,
    SIO_READ_EEPROM = 0x90,
};

/* SIO_RESET values, named from the chip's side (libftdi ftdi.h: TCOFLUSH 1 empties the data
   from the host waiting for the serial line, TCIFLUSH 2 the data from the line waiting for the
   host). */
enum { RESET_SIO = 0, RESET_TCOFLUSH = 1, RESET_TCIFLUSH = 2 };

#define FTDI_PACKET_SIZE 64
#define FTDI_STATUS_BYTES 2
/* Modem status bytes at the head of every bulk-IN packet: byte 0 bit 0 is set on FT232R
   parts (Linux ftdi_sio.h: "B0 Reserved - must be 1"), CTS/DSR/RI/RLSD clear; byte 1 THRE
   and TEMT (transmitter empty). */
static const uint8_t modem_status[FTDI_STATUS_BYTES] = {0x01, 0x60};

/* The chip's state after power-up or SIO reset: 9600 8N1, latency timer 16 ms. */
static void default_line(ccid_emu_ftdi_line *line)
{
    memset(line, 0, sizeof *line);
    line->baud_rate = 9600;
    line->data_bits = 8;
    line->latency_ms = 16;
}

emu_ftdi *emu_ftdi_new(const ccid_emu_ftdi_callbacks *callbacks)
{
    emu_ftdi *f = g_new0(emu_ftdi, 1);
    default_line(&f->line);
    f->on_line = callbacks != NULL ? callbacks->on_line : NULL;
    return f;
}

void emu_ftdi_free(emu_ftdi *f)
{
    if (f == NULL)
        return;
    if (f->timer != NULL) {
        g_source_destroy(f->timer);
        g_source_unref(f->timer);
    }
    g_free(f);
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)(v >> 8);
}

void emu_ftdi_build_descriptors(const ccid_emu_reader_info *info, bool has_serial, uint8_t d[18],
                                uint8_t **configuration, size_t *length)
{
    d[0] = 18;
    d[1] = 0x01;
    put16(d + 2, 0x0200);
    d[4] = 0x00;
    d[5] = 0x00;
    d[6] = 0x00;
    d[7] = 8; /* FT232R's control endpoint */
    put16(d + 8, info->vendor_id);
    put16(d + 10, info->product_id);
    put16(d + 12, 0x0600); /* libftdi reads bcdDevice 0x0600 as TYPE_R */
    d[14] = 1;
    d[15] = 2;
    d[16] = has_serial ? 3 : 0;
    d[17] = 1;

    const size_t total = 9 + 9 + 7 + 7;
    uint8_t *c = g_malloc0(total);
    const uint8_t config[9] = {9, 0x02, (uint8_t)total, 0, 1, 1, 0, 0xA0, 45}; /* bus powered, remote wakeup, 90 mA */
    const uint8_t interface[9] = {9, 0x04, 0, 0, 2, 0xFF, 0xFF, 0xFF, 2};
    const uint8_t bulk_in[7] = {7, 0x05, 0x81, 0x02, FTDI_PACKET_SIZE, 0, 0};
    const uint8_t bulk_out[7] = {7, 0x05, 0x02, 0x02, FTDI_PACKET_SIZE, 0, 0};
    memcpy(c, config, 9);
    memcpy(c + 9, interface, 9);
    memcpy(c + 18, bulk_in, 7);
    memcpy(c + 25, bulk_out, 7);
    *configuration = c;
    *length = total;
}

/*
 * FT232R baud divisor (FTDI AN232B-05; libftdi's ftdi_to_clkbits): a 14-bit integer part and a
 * 3-bit fraction code (bits 14-15 of wValue, bit 0 of wIndex) over a 3 MHz base; codes
 * 0..7 are 0, 1/2, 1/4, 1/8, 3/8, 5/8, 3/4, 7/8. Divisors 0 and 1 mean 3 and 2 Mbaud.
 */
static uint32_t decode_baud(uint16_t value, uint16_t index)
{
    static const unsigned eighths[8] = {0, 4, 2, 1, 3, 5, 6, 7};
    const uint32_t encoded = (uint32_t)value | ((uint32_t)(index & 0x01) << 16);
    const uint32_t integer = encoded & 0x3FFF;
    const unsigned fraction = eighths[(encoded >> 14) & 0x07];
    if (integer == 0 && fraction == 0)
        return 3000000;
    if (integer == 1 && fraction == 0)
        return 2000000;
    return (uint32_t)((3000000ull * 8 + (integer * 8 + fraction) / 2) / (integer * 8 + fraction));
}

int emu_ftdi_vendor_request(ccid_emu_reader *r, const ccid_emu_setup_packet *s, uint8_t *in, bool *line_changed)
{
    emu_ftdi *f = r->ftdi;
    const bool to_host = (s->request_type & 0x80) != 0;
    const bool reads = s->request == SIO_POLL_MODEM_STATUS || s->request == SIO_GET_LATENCY_TIMER ||
                       s->request == SIO_READ_PINS || s->request == SIO_READ_EEPROM;
    if (to_host != reads)
        return CCID_EMU_CONTROL_STALL;
    switch (s->request) {
    case SIO_RESET:
        if (s->value == RESET_SIO || s->value == RESET_TCIFLUSH)
            g_queue_clear_full(&r->data[EP_BULK_IN], emu_message_free);
        else if (s->value != RESET_TCOFLUSH)
            return CCID_EMU_CONTROL_STALL;
        /* TCOFLUSH: nothing is held, bulk-OUT bytes go to the line as they come */
        *line_changed = true;
        return 0;
    case SIO_MODEM_CTRL: {
        const unsigned mask = s->value >> 8;
        if (mask & 0x01)
            f->line.dtr = s->value & 0x01;
        if (mask & 0x02)
            f->line.rts = (s->value >> 1) & 0x01;
        *line_changed = true;
        return 0;
    }
    case SIO_SET_FLOW_CTRL:
        f->line.flow_control = s->index & 0xFF00;
        *line_changed = true;
        return 0;
    case SIO_SET_BAUD_RATE:
        f->line.baud_rate = decode_baud(s->value, s->index);
        *line_changed = true;
        return 0;
    case SIO_SET_DATA:
        f->line.data_bits = (uint8_t)(s->value & 0xFF);
        f->line.parity = (uint8_t)((s->value >> 8) & 0x07);
        f->line.stop_bits = (uint8_t)((s->value >> 11) & 0x03);
        f->line.break_on = (uint8_t)((s->value >> 14) & 0x01);
        *line_changed = true;
        return 0;
    case SIO_POLL_MODEM_STATUS: {
        const size_t n = MIN((size_t)s->length, sizeof modem_status);
        memcpy(in, modem_status, n);
        return (int)n;
    }
    case SIO_SET_EVENT_CHAR:
    case SIO_SET_ERROR_CHAR:
        return 0;
    case SIO_SET_LATENCY_TIMER:
        if ((s->value & 0xFF) == 0)
            return CCID_EMU_CONTROL_STALL;
        f->line.latency_ms = (uint8_t)(s->value & 0xFF);
        *line_changed = true;
        return 0;
    case SIO_GET_LATENCY_TIMER:
        if (s->length < 1)
            return CCID_EMU_CONTROL_STALL;
        in[0] = f->line.latency_ms;
        return 1;
    case SIO_SET_BITMODE:
        f->line.bit_mode = (uint8_t)(s->value >> 8);
        *line_changed = true;
        return 0;
    case SIO_READ_PINS:
        if (s->length < 1)
            return CCID_EMU_CONTROL_STALL;
        in[0] = 0xFF;
        return 1;
    case SIO_READ_EEPROM: { /* a blank EEPROM reads as all ones */
        const size_t n = MIN((size_t)s->length, (size_t)2);
        memset(in, 0xFF, n);
        return (int)n;
    }
    default:
        return CCID_EMU_CONTROL_STALL;
    }
}

/* Moves up to `room` queued serial bytes into `out`; returns how many. */
static size_t take_serial(ccid_emu_reader *r, uint8_t *out, size_t room)
{
    size_t taken = 0;
    while (taken < room && !g_queue_is_empty(&r->data[EP_BULK_IN])) {
        emu_message *m = g_queue_peek_head(&r->data[EP_BULK_IN]);
        const size_t n = MIN(room - taken, m->length - m->offset);
        memcpy(out + taken, m->data + m->offset, n);
        taken += n;
        m->offset += n;
        if (m->offset == m->length)
            emu_message_free(g_queue_pop_head(&r->data[EP_BULK_IN]));
    }
    return taken;
}

static gboolean latency_expired(gpointer user_data)
{
    ccid_emu_reader *r = user_data;
    g_mutex_lock(&r->lock);
    emu_ftdi *f = r->ftdi;
    g_source_unref(f->timer);
    f->timer = NULL;
    f->timer_fired = !g_queue_is_empty(&r->pending[EP_BULK_IN]);
    emu_pump_locked(r);
    g_mutex_unlock(&r->lock);
    return G_SOURCE_REMOVE;
}

/*
 * The chip sends what it holds in 64-byte packets, each led by the two status bytes; a short
 * packet ends the transfer. Holding nothing, it sends the status bytes alone each time its
 * latency timer expires: a waiting URB completes then, from a timer, so a reading client
 * sleeps instead of spinning. (A real chip also holds a few data bytes until the timer
 * expires; here they go at once.)
 */
void emu_ftdi_pump_bulk_in(ccid_emu_reader *r)
{
    emu_ftdi *f = r->ftdi;
    while (!g_queue_is_empty(&r->pending[EP_BULK_IN])) {
        const bool has_data = !g_queue_is_empty(&r->data[EP_BULK_IN]);
        if (!has_data && !f->timer_fired) {
            if (f->timer == NULL && r->worker != NULL) {
                f->timer = g_timeout_source_new(MAX(f->line.latency_ms, 1));
                g_source_set_callback(f->timer, latency_expired, r, NULL);
                g_source_attach(f->timer, r->worker);
            }
            return;
        }
        urb_entry *e = g_queue_pop_head(&r->pending[EP_BULK_IN]);
        f->timer_fired = false;
        if (f->timer != NULL) {
            g_source_destroy(f->timer);
            g_source_unref(f->timer);
            f->timer = NULL;
        }
        struct usbdevfs_urb *urb = emu_urb_of(e);
        const size_t capacity = urb->buffer_length > 0 ? (size_t)urb->buffer_length : 0;
        uint8_t *buffer = e->buffer_data != NULL ? (uint8_t *)e->buffer_data->data : NULL;
        size_t at = 0;
        while (capacity - at >= FTDI_STATUS_BYTES) {
            memcpy(buffer + at, modem_status, FTDI_STATUS_BYTES);
            at += FTDI_STATUS_BYTES;
            const size_t room = MIN((size_t)(FTDI_PACKET_SIZE - FTDI_STATUS_BYTES), capacity - at);
            const size_t n = take_serial(r, buffer + at, room);
            at += n;
            if (n < FTDI_PACKET_SIZE - FTDI_STATUS_BYTES || g_queue_is_empty(&r->data[EP_BULK_IN]))
                break; /* a short packet, or nothing more held */
        }
        r->stats.bulk_in_transfers++;
        emu_finish_urb(e, 0, (int)at);
    }
}

int ccid_emu_ftdi_push_serial(ccid_emu_reader *r, const uint8_t *data, size_t length)
{
    if (r->ftdi == NULL)
        return -EINVAL;
    return ccid_emu_reader_push_bulk_in(r, data, length);
}

void ccid_emu_ftdi_get_line(ccid_emu_reader *r, ccid_emu_ftdi_line *line)
{
    g_mutex_lock(&r->lock);
    if (r->ftdi != NULL)
        *line = r->ftdi->line;
    else
        memset(line, 0, sizeof *line);
    g_mutex_unlock(&r->lock);
}
