/* USB descriptors of an emulated CCID reader. */
#include "ccid_emu_private.h"

#include <string.h>

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v & 0xff);
    p[1] = (uint8_t)(v >> 8);
}

void emu_build_device_descriptor(uint8_t d[18], const ccid_emu_reader_info *info, bool has_serial)
{
    d[0] = 18;   /* bLength */
    d[1] = 0x01; /* DEVICE */
    put16(d + 2, 0x0200);
    d[4] = 0x00; /* class per interface */
    d[5] = 0x00;
    d[6] = 0x00;
    d[7] = 64;   /* bMaxPacketSize0 */
    put16(d + 8, info->vendor_id);
    put16(d + 10, info->product_id);
    put16(d + 12, info->bcd_device);
    d[14] = 1;   /* iManufacturer */
    d[15] = 2;   /* iProduct */
    d[16] = has_serial ? 3 : 0;
    d[17] = 1;   /* bNumConfigurations */
}

uint8_t *emu_build_configuration(const ccid_emu_reader_info *info, bool has_interface_string, size_t *length)
{
    const int endpoints = info->has_interrupt_endpoint ? 3 : 2;
    const size_t total = 9 + 9 + 54 + 7 * (size_t)endpoints;
    uint8_t *c = g_malloc0(total);
    uint8_t *p = c;

    /* configuration */
    p[0] = 9;
    p[1] = 0x02;
    put16(p + 2, (uint16_t)total);
    p[4] = 1;    /* bNumInterfaces */
    p[5] = 1;    /* bConfigurationValue */
    p[6] = 0;
    p[7] = 0x80; /* bus powered */
    p[8] = 50;   /* 100 mA */
    p += 9;

    /* interface 0: smart card (0x0B) */
    p[0] = 9;
    p[1] = 0x04;
    p[2] = 0;
    p[3] = 0;
    p[4] = (uint8_t)endpoints;
    p[5] = 0x0B;
    p[6] = 0;
    p[7] = 0;
    p[8] = has_interface_string ? 4 : 0;
    p += 9;

    /* CCID class descriptor, as given */
    memcpy(p, info->class_descriptor, 54);
    p += 54;

    /* bulk OUT, bulk IN, interrupt IN */
    const uint8_t bulk_out[7] = {7, 0x05, CCID_EMU_ENDPOINT_BULK_OUT, 0x02, CCID_EMU_BULK_PACKET_SIZE, 0, 0};
    const uint8_t bulk_in[7] = {7, 0x05, CCID_EMU_ENDPOINT_BULK_IN, 0x02, CCID_EMU_BULK_PACKET_SIZE, 0, 0};
    const uint8_t interrupt_in[7] = {7, 0x05, CCID_EMU_ENDPOINT_INTERRUPT_IN, 0x03, CCID_EMU_INTERRUPT_PACKET_SIZE, 0, 0x10};
    memcpy(p, bulk_out, 7);
    p += 7;
    memcpy(p, bulk_in, 7);
    p += 7;
    if (info->has_interrupt_endpoint) {
        memcpy(p, interrupt_in, 7);
        p += 7;
    }
    *length = total;
    return c;
}

/* A string descriptor (UTF-16LE) for `text`; returns its length (at most `capacity`). */
size_t emu_string_descriptor(const char *text, uint8_t *out, size_t capacity)
{
    glong units = 0;
    gunichar2 *utf16 = g_utf8_to_utf16(text, -1, NULL, &units, NULL);
    if (utf16 == NULL)
        units = 0;
    if (units > 126) /* bLength is one byte */
        units = 126;
    uint8_t full[254];
    full[0] = (uint8_t)(2 + 2 * units);
    full[1] = 0x03;
    for (glong i = 0; i < units; i++)
        put16(full + 2 + 2 * i, utf16[i]);
    g_free(utf16);
    size_t n = MIN((size_t)full[0], capacity);
    memcpy(out, full, n);
    return n;
}

char *emu_hex(const uint8_t *data, size_t length)
{
    static const char digits[] = "0123456789ABCDEF";
    char *s = g_malloc(2 * length + 1);
    for (size_t i = 0; i < length; i++) {
        s[2 * i] = digits[data[i] >> 4];
        s[2 * i + 1] = digits[data[i] & 0xf];
    }
    s[2 * length] = '\0';
    return s;
}
