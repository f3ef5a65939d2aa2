/*
 * seaway.protocol._columns: the record loop of seaway/protocol/record_columns.py in C.
 *
 * Decodes the records of v2 batches straight into Arrow's column buffers (little-endian
 * int64/int32 values, int32 offsets, validity bitmaps with bit i set when row i is not
 * null), so reading a topic into Spark makes no Python object per record. The Python
 * reference (_decode_columns_py) gives the same bytes; tests compare the two.
 *
 * decode_columns(parts, start, end, headers) -> tuple, see record_columns.Columns
 *   parts: sequence of (records section: bytes-like (decompressed), record count,
 *          base offset, base timestamp, timestamp type (0 create, 1 log append),
 *          max timestamp)
 *   Only records with start <= offset < end are kept.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_varint.h"

/* One output buffer: a bytes object filled up to len, shrunk to it at the end. */
typedef struct {
    PyObject *bytes;
    uint8_t *p;
    Py_ssize_t len;
} out_t;

static int
out_new(out_t *o, Py_ssize_t capacity, int zeroed)
{
    o->bytes = PyBytes_FromStringAndSize(NULL, capacity);
    if (o->bytes == NULL)
        return -1;
    o->p = (uint8_t *)PyBytes_AS_STRING(o->bytes);
    if (zeroed)
        memset(o->p, 0, capacity);
    o->len = 0;
    return 0;
}

static PyObject *
out_take(out_t *o)
{
    if (_PyBytes_Resize(&o->bytes, o->len) < 0)
        return NULL;
    PyObject *b = o->bytes;
    o->bytes = NULL;
    return b;
}

static inline void
put_i64(out_t *o, int64_t v)
{
    memcpy(o->p + o->len, &v, 8);
    o->len += 8;
}

static inline void
put_i32(out_t *o, int32_t v)
{
    memcpy(o->p + o->len, &v, 4);
    o->len += 4;
}

/* A variable-size binary column: validity bitmap, offsets, data. */
typedef struct {
    out_t validity, offsets, data;
    Py_ssize_t rows, nulls;
} binary_t;

static int
binary_new(binary_t *b, Py_ssize_t rows, Py_ssize_t data_capacity)
{
    memset(b, 0, sizeof(*b));
    if (out_new(&b->validity, (rows + 7) / 8, 1) < 0 || out_new(&b->offsets, 4 * (rows + 1), 0) < 0 ||
        out_new(&b->data, data_capacity, 0) < 0)
        return -1;
    put_i32(&b->offsets, 0);
    return 0;
}

static void
binary_clear(binary_t *b)
{
    Py_CLEAR(b->validity.bytes);
    Py_CLEAR(b->offsets.bytes);
    Py_CLEAR(b->data.bytes);
}

/* Append the field at src (length < 0: null). */
static inline void
binary_put(binary_t *b, const uint8_t *src, int64_t length)
{
    if (length < 0) {
        b->nulls++;
    } else {
        b->validity.p[b->rows >> 3] |= (uint8_t)(1u << (b->rows & 7));
        if (length > 0)
            memcpy(b->data.p + b->data.len, src, (size_t)length);
        b->data.len += (Py_ssize_t)length;
    }
    put_i32(&b->offsets, (int32_t)b->data.len);
    b->rows++;
}

static PyObject *
binary_take(binary_t *b)
{
    b->validity.len = (b->rows + 7) / 8;
    PyObject *validity = out_take(&b->validity);
    PyObject *offsets = validity ? out_take(&b->offsets) : NULL;
    PyObject *data = offsets ? out_take(&b->data) : NULL;
    if (data == NULL) {
        Py_XDECREF(validity);
        Py_XDECREF(offsets);
        return NULL;
    }
    return Py_BuildValue("(NnNN)", validity, b->nulls, offsets, data);
}

/* Read one length-prefixed field of a record ending at end; -1 if malformed. */
static inline int
read_field(const uint8_t *src, Py_ssize_t end, Py_ssize_t *pos, int64_t *length)
{
    if (read_varint(src, end, pos, length) < 0)
        return -1;
    if (*length >= 0) {
        if (*length > end - *pos)
            return -1;
        *pos += (Py_ssize_t)*length;
    }
    return 0;
}

typedef struct {
    Py_buffer view;
    long long count, base_offset, base_timestamp, max_timestamp;
    int timestamp_type;
} part_t;

static PyObject *
decode_columns(PyObject *self, PyObject *args)
{
    PyObject *parts_arg;
    long long start, end;
    int want_headers;
    if (!PyArg_ParseTuple(args, "OLLp", &parts_arg, &start, &end, &want_headers))
        return NULL;
    PyObject *seq = PySequence_Fast(parts_arg, "parts must be a sequence");
    if (seq == NULL)
        return NULL;
    Py_ssize_t nparts = PySequence_Fast_GET_SIZE(seq), got = 0;
    part_t *parts = PyMem_Calloc(nparts ? nparts : 1, sizeof(part_t));
    PyObject *result = NULL;
    out_t offsets = {0}, timestamps = {0}, types = {0}, list_offsets = {0};
    binary_t keys = {0}, values = {0}, header_valid = {0}, hkeys = {0}, hvalues = {0};
    int64_t bad_offset = -1;
    if (parts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t total_records = 0, total_bytes = 0;
    for (Py_ssize_t i = 0; i < nparts; i++) {
        part_t *part = &parts[i];
        PyObject *data;
        if (!PyArg_ParseTuple(PySequence_Fast_GET_ITEM(seq, i), "OLLLiL", &data, &part->count,
                              &part->base_offset, &part->base_timestamp, &part->timestamp_type,
                              &part->max_timestamp))
            goto done;
        if (PyObject_GetBuffer(data, &part->view, PyBUF_SIMPLE) < 0)
            goto done;
        got = i + 1;
        if (part->count < 0 || part->count > part->view.len) { /* a record takes >= 1 byte */
            PyErr_Format(PyExc_ValueError, "malformed record at offset %lld", part->base_offset);
            goto done;
        }
        total_records += (Py_ssize_t)part->count;
        total_bytes += part->view.len;
    }
    if (total_bytes > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "records of one column batch exceed 2 GiB");
        goto done;
    }
    if (out_new(&offsets, 8 * total_records, 0) < 0 || out_new(&timestamps, 8 * total_records, 0) < 0 ||
        out_new(&types, 4 * total_records, 0) < 0 ||
        binary_new(&keys, total_records, total_bytes) < 0 ||
        binary_new(&values, total_records, total_bytes) < 0)
        goto done;
    if (want_headers) {
        /* header_valid only carries the list validity; its data stays empty. */
        Py_ssize_t max_headers = total_bytes / 2;
        if (binary_new(&header_valid, total_records, 0) < 0 ||
            out_new(&list_offsets, 4 * (total_records + 1), 0) < 0 ||
            binary_new(&hkeys, max_headers, total_bytes) < 0 ||
            binary_new(&hvalues, max_headers, total_bytes) < 0)
            goto done;
        put_i32(&list_offsets, 0);
    }
    for (Py_ssize_t i = 0; i < nparts; i++) {
        const part_t *part = &parts[i];
        const uint8_t *src = part->view.buf;
        Py_ssize_t len = part->view.len, pos = 0;
        bad_offset = part->base_offset;
        for (long long r = 0; r < part->count; r++) {
            int64_t length, ts_delta, offset_delta, key_len, value_len, header_count;
            if (read_varint(src, len, &pos, &length) < 0 || length < 1 || length > len - pos)
                goto malformed;
            Py_ssize_t record_end = pos + (Py_ssize_t)length, at = pos + 1;
            if (read_varint(src, record_end, &at, &ts_delta) < 0 ||
                read_varint(src, record_end, &at, &offset_delta) < 0)
                goto malformed;
            int64_t offset = part->base_offset + offset_delta;
            bad_offset = offset;
            Py_ssize_t key_at, value_at;
            if (read_field(src, record_end, &at, &key_len) < 0)
                goto malformed;
            key_at = at - (key_len > 0 ? (Py_ssize_t)key_len : 0);
            if (read_field(src, record_end, &at, &value_len) < 0)
                goto malformed;
            value_at = at - (value_len > 0 ? (Py_ssize_t)value_len : 0);
            if (read_varint(src, record_end, &at, &header_count) < 0 || header_count < 0)
                goto malformed;
            int keep = offset >= start && offset < end;
            if (keep) {
                int64_t ts = part->timestamp_type ? part->max_timestamp
                                                  : part->base_timestamp + ts_delta;
                put_i64(&offsets, offset);
                put_i64(&timestamps, ts * 1000); /* Spark's timestamps are microseconds */
                put_i32(&types, part->timestamp_type);
                binary_put(&keys, src + key_at, key_len);
                binary_put(&values, src + value_at, value_len);
            }
            for (int64_t h = 0; h < header_count; h++) {
                int64_t name_len, hvalue_len;
                Py_ssize_t name_at, hvalue_at;
                if (read_field(src, record_end, &at, &name_len) < 0 || name_len < 0)
                    goto malformed; /* Kafka: "Invalid negative header key size" */
                name_at = at - (Py_ssize_t)name_len;
                if (read_field(src, record_end, &at, &hvalue_len) < 0)
                    goto malformed;
                hvalue_at = at - (hvalue_len > 0 ? (Py_ssize_t)hvalue_len : 0);
                if (keep && want_headers) {
                    binary_put(&hkeys, src + name_at, name_len);
                    binary_put(&hvalues, src + hvalue_at, hvalue_len);
                }
            }
            if (at != record_end)
                goto malformed;
            if (keep && want_headers) {
                /* Spark's Kafka source: a record without headers has null headers. */
                binary_put(&header_valid, src, header_count ? 0 : -1);
                put_i32(&list_offsets, (int32_t)hkeys.rows);
            }
            pos = record_end;
        }
    }
    PyObject *headers = Py_None;
    Py_INCREF(Py_None);
    if (want_headers) {
        header_valid.validity.len = (header_valid.rows + 7) / 8;
        PyObject *list_validity = out_take(&header_valid.validity);
        PyObject *list_offs = list_validity ? out_take(&list_offsets) : NULL;
        PyObject *hk = list_offs ? binary_take(&hkeys) : NULL;
        PyObject *hv = hk ? binary_take(&hvalues) : NULL;
        Py_DECREF(headers);
        if (hv == NULL) {
            Py_XDECREF(list_validity);
            Py_XDECREF(list_offs);
            Py_XDECREF(hk);
            goto done;
        }
        headers = Py_BuildValue("(NnNNN)", list_validity, header_valid.nulls, list_offs, hk, hv);
        if (headers == NULL)
            goto done;
    }
    PyObject *o = out_take(&offsets), *t = o ? out_take(&timestamps) : NULL;
    PyObject *ty = t ? out_take(&types) : NULL, *k = ty ? binary_take(&keys) : NULL;
    PyObject *v = k ? binary_take(&values) : NULL;
    if (v == NULL) {
        Py_XDECREF(o);
        Py_XDECREF(t);
        Py_XDECREF(ty);
        Py_XDECREF(k);
        Py_DECREF(headers);
        goto done;
    }
    result = Py_BuildValue("(nNNNNNN)", keys.rows, o, t, ty, k, v, headers);
    goto done;
malformed:
    PyErr_Format(PyExc_ValueError, "malformed record at offset %lld", (long long)bad_offset);
done:
    Py_XDECREF(offsets.bytes);
    Py_XDECREF(timestamps.bytes);
    Py_XDECREF(types.bytes);
    Py_XDECREF(list_offsets.bytes);
    binary_clear(&keys);
    binary_clear(&values);
    binary_clear(&header_valid);
    binary_clear(&hkeys);
    binary_clear(&hvalues);
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&parts[i].view);
    PyMem_Free(parts);
    Py_DECREF(seq);
    return result;
}

static PyMethodDef methods[] = {
    {"decode_columns", decode_columns, METH_VARARGS,
     "decode_columns(parts, start, end, headers) -> columns of the records in [start, end)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_columns", "The record loop of record_columns, in C.", -1, methods,
};

PyMODINIT_FUNC
PyInit__columns(void)
{
    return PyModule_Create(&module);
}
