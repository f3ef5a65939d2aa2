/*
 * Zigzag varints as Kafka's v2 records encode lengths and deltas (ByteUtils.readVarlong /
 * writeVarlong), shared by Seaway's C record loops. seaway/protocol/varint.py is the
 * Python reference.
 */
#ifndef SEAWAY_VARINT_H
#define SEAWAY_VARINT_H

#include <Python.h>
#include <stdint.h>

/* Read the varint at buf[*pos] (buf holds len bytes); 0 on success, -1 if it runs past
 * the buffer or 64 bits. */
static inline int
read_varint(const uint8_t *buf, Py_ssize_t len, Py_ssize_t *pos, int64_t *out)
{
    uint64_t result = 0;
    int shift = 0;
    for (;;) {
        if (*pos >= len || shift > 63)
            return -1;
        uint8_t byte = buf[(*pos)++];
        result |= (uint64_t)(byte & 0x7F) << shift;
        if (!(byte & 0x80))
            break;
        shift += 7;
    }
    *out = (int64_t)((result >> 1) ^ (~(result & 1) + 1));
    return 0;
}

/* Write value as a varint at out (room for 10 bytes); the number of bytes written. */
static inline Py_ssize_t
write_varint(uint8_t *out, int64_t value)
{
    uint64_t v = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
    Py_ssize_t n = 0;
    while (v & ~(uint64_t)0x7F) {
        out[n++] = (uint8_t)((v & 0x7F) | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

#endif
