/*
 * seaway.broker.log._keyscan: the key-only record scans of seaway/broker/log/key_scan.py
 * and offset_map.py, in C.
 *
 * A batch's records section (decompressed) is parsed record by record for what compaction
 * needs: each record's offset, key span and whether its value is null. Every varint and
 * length is checked against the record and the section, as the Python reference
 * (key_scan.scan_records) does; a malformed record raises ValueError naming its index.
 * The GIL is released while a section is scanned and the offset map probed.
 *
 * null_keys(records, count) -> list of the indexes of the records whose key is null
 * map_keys(records, count, base_offset, hashes, offsets, room) -> (added, latest, complete)
 *   (latest: the offset last put, None if none)
 *   puts each keyed record's key hash -> offset into the map's int64 buffers (slots as in
 *   OffsetMap: hash(key) or 1, linear probing from hash % slots); at most room new slots.
 * retain(records, count, base_offset, hashes, offsets, horizon) -> (kept, records)
 *   the records the cleaner keeps, copied byte for byte: a key, no later offset in the map,
 *   and not a tombstone below horizon.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "../../protocol/_varint.h"

#if PY_VERSION_HEX >= 0x030E0000
#define KEY_HASH(p, n) Py_HashBuffer((p), (n))
#else
#define KEY_HASH(p, n) _Py_HashBytes((p), (n)) /* what hash(bytes) computes */
#endif

typedef struct {
    int64_t offset;
    Py_ssize_t start, end; /* the whole record, its length varint included */
    Py_ssize_t key_at;
    int32_t key_len; /* -1: null */
    uint8_t tombstone;
} rec_t;

/* A varint Kafka reads as an int32 (ByteUtils.readVarint): at most 5 bytes. */
static inline int
read_int32(const uint8_t *src, Py_ssize_t end, Py_ssize_t *pos, int32_t *out)
{
    Py_ssize_t start = *pos;
    int64_t value;
    if (read_varint(src, end, pos, &value) < 0 || *pos - start > 5 || value < INT32_MIN ||
        value > INT32_MAX)
        return -1;
    *out = (int32_t)value;
    return 0;
}

/* A length-prefixed field ending by end: its start and length (any negative: null, -1). */
static inline int
read_field(const uint8_t *src, Py_ssize_t end, Py_ssize_t *pos, Py_ssize_t *at, int32_t *length)
{
    if (read_int32(src, end, pos, length) < 0)
        return -1;
    *at = *pos;
    if (*length < 0) {
        *length = -1;
    } else {
        if (*length > end - *pos)
            return -1;
        *pos += *length;
    }
    return 0;
}

/* Parse count records of src[0:len] into out; -1 when all are well formed, else the index
 * of the first malformed one. Bytes after the last record are ignored. */
static Py_ssize_t
scan(const uint8_t *src, Py_ssize_t len, Py_ssize_t count, int64_t base_offset, rec_t *out)
{
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; i < count; i++) {
        rec_t *r = &out[i];
        int32_t length, offset_delta, value_len, header_count, name_len, hvalue_len;
        int64_t ts_delta;
        Py_ssize_t value_at, name_at, hvalue_at;
        r->start = pos;
        if (read_int32(src, len, &pos, &length) < 0 || length < 1 || length > len - pos)
            return i;
        Py_ssize_t end = pos + length, at = pos + 1; /* after the attributes byte */
        if (read_varint(src, end, &at, &ts_delta) < 0 ||
            read_int32(src, end, &at, &offset_delta) < 0 ||
            __builtin_add_overflow(base_offset, (int64_t)offset_delta, &r->offset) ||
            read_field(src, end, &at, &r->key_at, &r->key_len) < 0 ||
            read_field(src, end, &at, &value_at, &value_len) < 0 ||
            read_int32(src, end, &at, &header_count) < 0 || header_count < 0 ||
            header_count > (end - at) / 2) /* a header takes two bytes at least */
            return i;
        for (int32_t h = 0; h < header_count; h++) {
            if (read_field(src, end, &at, &name_at, &name_len) < 0 || name_len < 0 ||
                read_field(src, end, &at, &hvalue_at, &hvalue_len) < 0)
                return i;
        }
        if (at != end)
            return i;
        r->tombstone = value_len < 0;
        r->end = end;
        pos = end;
    }
    return -1;
}

static inline int64_t
key_hash(const uint8_t *src, const rec_t *r)
{
    int64_t h = (int64_t)KEY_HASH(src + r->key_at, r->key_len);
    return h ? h : 1; /* 0 marks an empty slot */
}

/* The slot of hash h: where it is, or the empty slot where it would go; -1 if neither
 * (a map with no empty slot, which OffsetMap never makes). */
static inline Py_ssize_t
find_slot(const int64_t *hashes, Py_ssize_t slots, int64_t h)
{
    Py_ssize_t i = (Py_ssize_t)(h % slots);
    if (i < 0)
        i += slots;
    for (Py_ssize_t probes = 0; probes < slots; probes++) {
        int64_t found = hashes[i];
        if (found == h || found == 0)
            return i;
        if (++i == slots)
            i = 0;
    }
    return -1;
}

/* The parsed records of a section, or NULL with an exception set. */
static rec_t *
scan_section(Py_buffer *records, Py_ssize_t count, int64_t base_offset)
{
    if (count < 0 || count > records->len) { /* a record takes one byte at least */
        PyErr_Format(PyExc_ValueError, "malformed records: %zd records cannot fit in %zd bytes",
                     count, records->len);
        return NULL;
    }
    rec_t *recs = PyMem_RawMalloc(count ? (size_t)count * sizeof(rec_t) : 1);
    if (recs == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    Py_ssize_t bad;
    Py_BEGIN_ALLOW_THREADS
    bad = scan(records->buf, records->len, count, base_offset, recs);
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyMem_RawFree(recs);
        PyErr_Format(PyExc_ValueError, "malformed records: record %zd of %zd", bad, count);
        return NULL;
    }
    return recs;
}

/* The map's two int64 buffers, of the same number of slots (one at least). */
static int
check_map(const Py_buffer *hashes, const Py_buffer *offsets, Py_ssize_t *slots)
{
    if (hashes->len != offsets->len || hashes->len % 8 || hashes->len == 0) {
        PyErr_SetString(PyExc_ValueError, "hashes and offsets must be int64 buffers of one size");
        return -1;
    }
    *slots = hashes->len / 8;
    return 0;
}

static PyObject *
null_keys(PyObject *self, PyObject *args)
{
    Py_buffer records;
    Py_ssize_t count;
    if (!PyArg_ParseTuple(args, "y*n", &records, &count))
        return NULL;
    PyObject *result = NULL;
    rec_t *recs = scan_section(&records, count, 0);
    if (recs != NULL) {
        result = PyList_New(0);
        for (Py_ssize_t i = 0; result != NULL && i < count; i++) {
            if (recs[i].key_len >= 0)
                continue;
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL || PyList_Append(result, index) < 0)
                Py_CLEAR(result);
            Py_XDECREF(index);
        }
        PyMem_RawFree(recs);
    }
    PyBuffer_Release(&records);
    return result;
}

static PyObject *
map_keys(PyObject *self, PyObject *args)
{
    Py_buffer records, hashes_buf, offsets_buf;
    Py_ssize_t count, room, slots, added = 0;
    long long base_offset;
    int64_t latest = -1;
    int complete = 1, put = 0;
    if (!PyArg_ParseTuple(args, "y*nLw*w*n", &records, &count, &base_offset, &hashes_buf,
                          &offsets_buf, &room))
        return NULL;
    PyObject *result = NULL;
    rec_t *recs = NULL;
    if (check_map(&hashes_buf, &offsets_buf, &slots) < 0)
        goto done;
    recs = scan_section(&records, count, base_offset);
    if (recs == NULL)
        goto done;
    int64_t *hashes = hashes_buf.buf, *offsets = offsets_buf.buf;
    const uint8_t *src = records.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) {
        const rec_t *r = &recs[i];
        if (r->key_len < 0)
            continue;
        int64_t h = key_hash(src, r);
        Py_ssize_t slot = find_slot(hashes, slots, h);
        if (slot < 0 || (hashes[slot] == 0 && added >= room)) {
            complete = 0;
            break;
        }
        if (hashes[slot] == 0) {
            hashes[slot] = h;
            added++;
        }
        offsets[slot] = r->offset;
        latest = r->offset;
        put = 1;
    }
    Py_END_ALLOW_THREADS
    PyObject *last = put ? PyLong_FromLongLong(latest) : Py_NewRef(Py_None);
    if (last != NULL)
        result = Py_BuildValue("(nNO)", added, last, complete ? Py_True : Py_False);
done:
    PyMem_RawFree(recs);
    PyBuffer_Release(&records);
    PyBuffer_Release(&hashes_buf);
    PyBuffer_Release(&offsets_buf);
    return result;
}

static PyObject *
retain(PyObject *self, PyObject *args)
{
    Py_buffer records, hashes_buf, offsets_buf;
    Py_ssize_t count, slots, kept = 0, size = 0;
    long long base_offset, horizon;
    if (!PyArg_ParseTuple(args, "y*nLy*y*L", &records, &count, &base_offset, &hashes_buf,
                          &offsets_buf, &horizon))
        return NULL;
    PyObject *result = NULL, *out = NULL;
    rec_t *recs = NULL;
    if (check_map(&hashes_buf, &offsets_buf, &slots) < 0)
        goto done;
    recs = scan_section(&records, count, base_offset);
    if (recs == NULL)
        goto done;
    out = PyBytes_FromStringAndSize(NULL, records.len);
    if (out == NULL)
        goto done;
    const int64_t *hashes = hashes_buf.buf, *offsets = offsets_buf.buf;
    const uint8_t *src = records.buf;
    uint8_t *dst = (uint8_t *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < count; i++) {
        const rec_t *r = &recs[i];
        if (r->key_len < 0) /* a compacted topic has no use for it (Kafka drops it too) */
            continue;
        int64_t h = key_hash(src, r);
        Py_ssize_t slot = find_slot(hashes, slots, h);
        int64_t latest = slot >= 0 && hashes[slot] == h ? offsets[slot] : -1; /* OffsetMap.get */
        if (latest > r->offset)
            continue; /* a later record has the key */
        if (r->tombstone && r->offset < horizon)
            continue;
        memcpy(dst + size, src + r->start, (size_t)(r->end - r->start));
        size += r->end - r->start;
        kept++;
    }
    Py_END_ALLOW_THREADS
    if (_PyBytes_Resize(&out, size) < 0)
        goto done;
    result = Py_BuildValue("(nN)", kept, out);
    out = NULL;
done:
    Py_XDECREF(out);
    PyMem_RawFree(recs);
    PyBuffer_Release(&records);
    PyBuffer_Release(&hashes_buf);
    PyBuffer_Release(&offsets_buf);
    return result;
}

static PyMethodDef methods[] = {
    {"null_keys", null_keys, METH_VARARGS,
     "null_keys(records, count) -> indexes of the records whose key is null."},
    {"map_keys", map_keys, METH_VARARGS,
     "map_keys(records, count, base_offset, hashes, offsets, room) -> (added, latest, complete)."},
    {"retain", retain, METH_VARARGS,
     "retain(records, count, base_offset, hashes, offsets, horizon) -> (kept, records)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_keyscan", "Key-only record scans for log compaction, in C.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__keyscan(void)
{
    return PyModule_Create(&module);
}
