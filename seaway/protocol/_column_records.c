/*
 * seaway.protocol._column_records: the record loop of seaway/protocol/column_records.py in C.
 *
 * Encodes rows held as Arrow column buffers (validity bitmaps, int32 offsets, data; int64
 * timestamps; a list<struct<key, value>> of headers) into the records section of one v2
 * batch, as many rows as fit a size limit, with no Python object per record. The Python
 * reference (_encode_records_py) gives the same bytes and the same errors; tests compare.
 *
 * encode_records(values, keys, timestamps, headers, rows, start, max_bytes, now_ms)
 *     -> (section, count, base_timestamp, max_timestamp, next)
 *   values, keys: (validity, offsets, data, offset, length); keys may be None
 *   timestamps: (validity, values, offset, length) or None
 *   headers: (validity, offsets, offset, length, keys, values) or None
 *   rows: int32 row indices (bytes-like) or None for every row in order
 *
 * A bad row (index out of range, offsets outside the data, a null header key) raises at
 * `start`, and further on ends the batch before it.
 *
 * Two passes: the first checks each record and sums its size until the batch is full, the
 * second writes into a bytes object of exactly that size. Both run without the GIL, so the
 * second checks again everything it reads and writes (the buffers are the caller's).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "_varint.h"

#define BATCH_OVERHEAD 61

/* One column's buffers: validity (NULL: no nulls), int32 offsets or fixed values, data. */
typedef struct {
    const char *name;
    Py_buffer view[3];
    int held[3];
    const uint8_t *validity, *values, *data;
    Py_ssize_t data_len, offset, length;
} col_t;

enum {
    OK = 0,
    ERR_ROW,          /* a = row index, b = position */
    ERR_OFFSETS,      /* name, a = row */
    ERR_LIST_OFFSETS, /* a = row */
    ERR_NULL_NAME,    /* a = row */
    ERR_TIMESTAMP,    /* a = row */
    ERR_TOO_LARGE,    /* a = row */
    ERR_CHANGED,
};

typedef struct {
    col_t values, keys, stamps, lists, hkeys, hvalues;
    int has_keys, has_stamps, has_headers;
    Py_buffer rows_view;
    int rows_held;
    const uint8_t *rows;
    Py_ssize_t positions;
    int64_t now_ms;
    int err;
    const char *err_name;
    int64_t err_a, err_b;
} ctx_t;

static inline int32_t
rd_i32(const uint8_t *p)
{
    int32_t v;
    memcpy(&v, p, 4);
    return v;
}

static inline int64_t
rd_i64(const uint8_t *p)
{
    int64_t v;
    memcpy(&v, p, 8);
    return v;
}

static inline int
is_valid(const uint8_t *validity, Py_ssize_t i)
{
    return validity == NULL || ((validity[i >> 3] >> (i & 7)) & 1);
}

static inline Py_ssize_t
varint_size(int64_t value)
{
    uint64_t v = ((uint64_t)value << 1) ^ (uint64_t)(value >> 63);
    Py_ssize_t n = 1;
    while (v & ~(uint64_t)0x7F) {
        v >>= 7;
        n++;
    }
    return n;
}

static inline Py_ssize_t
field_size(int64_t length)
{
    return length < 0 ? 1 : varint_size(length) + (Py_ssize_t)length;
}

/* ---- buffers ---------------------------------------------------------------------------- */

static int
get_view(col_t *c, int k, PyObject *obj, const char *what)
{
    if (obj == Py_None)
        return 0;
    if (PyObject_GetBuffer(obj, &c->view[k], PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "%s: %s is not a contiguous buffer", c->name, what);
        return -1;
    }
    c->held[k] = 1;
    return 0;
}

static void
col_release(col_t *c)
{
    for (int k = 0; k < 3; k++)
        if (c->held[k]) {
            PyBuffer_Release(&c->view[k]);
            c->held[k] = 0;
        }
}

/* The bytes view k must hold: `count` values of `width` bytes, capped where no buffer can
 * be that large. */
static Py_ssize_t
need_of(Py_ssize_t count, Py_ssize_t width)
{
    return count > PY_SSIZE_T_MAX / 16 ? PY_SSIZE_T_MAX : count * width;
}

static int
check_size(col_t *c, int k, Py_ssize_t need, const char *what)
{
    if (!c->held[k]) {
        if (need) {
            PyErr_Format(PyExc_ValueError, "%s: %s buffer missing", c->name, what);
            return -1;
        }
        return 0;
    }
    if (c->view[k].len < need) {
        PyErr_Format(PyExc_ValueError, "%s: %s buffer too short", c->name, what);
        return -1;
    }
    return 0;
}

/* Views of a validity bitmap and `width`-byte values, checked to hold the rows [offset,
 * offset + length): one value a row, one more for offsets (as column_records._fixed). */
static int
fixed_open(col_t *c, PyObject *validity, PyObject *values, Py_ssize_t width, const char *what)
{
    Py_ssize_t extra = strcmp(what, "offsets") == 0;
    if (c->offset < 0 || c->length < 0) {
        PyErr_Format(PyExc_ValueError, "%s: negative offset or length", c->name);
        return -1;
    }
    if (get_view(c, 0, validity, "validity") < 0 || get_view(c, 1, values, what) < 0)
        return -1;
    Py_ssize_t end = c->offset > PY_SSIZE_T_MAX / 16 - c->length ? PY_SSIZE_T_MAX / 16 + 1
                                                                 : c->offset + c->length;
    if ((c->held[0] && check_size(c, 0, c->length ? end / 8 + (end % 8 != 0) : 0, "validity") < 0) ||
        check_size(c, 1, c->length ? need_of(end + extra, width) : 0, what) < 0)
        return -1;
    c->validity = c->held[0] ? c->view[0].buf : NULL;
    c->values = c->held[1] ? c->view[1].buf : NULL;
    return 0;
}

/* PyArg_ParseTuple on a tuple (a NamedTuple) only; nonzero on success. */
static int
parse(PyObject *obj, const char *format, ...)
{
    if (!PyTuple_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "column buffers must be a tuple");
        return 0;
    }
    va_list va;
    va_start(va, format);
    int ok = PyArg_VaParse(obj, format, va);
    va_end(va);
    return ok;
}

static int
binary_open(col_t *c, const char *name, PyObject *tuple)
{
    PyObject *validity, *offsets, *data;
    c->name = name;
    if (!parse(tuple, "OOOnn;a column is (validity, offsets, data, offset, length)",
                          &validity, &offsets, &data, &c->offset, &c->length))
        return -1;
    if (fixed_open(c, validity, offsets, 4, "offsets") < 0 || get_view(c, 2, data, "data") < 0)
        return -1;
    c->data = c->held[2] ? c->view[2].buf : NULL;
    c->data_len = c->held[2] ? c->view[2].len : 0;
    return 0;
}

static int
same_rows(const char *name, Py_ssize_t length, Py_ssize_t rows)
{
    if (length == rows)
        return 0;
    PyErr_Format(PyExc_ValueError, "%s: %zd rows, values have %zd", name, length, rows);
    return -1;
}

static int
ctx_open(ctx_t *x, PyObject *values, PyObject *keys, PyObject *stamps, PyObject *headers,
         PyObject *rows)
{
    if (binary_open(&x->values, "values", values) < 0)
        return -1;
    if (keys != Py_None) {
        x->has_keys = 1;
        if (binary_open(&x->keys, "keys", keys) < 0)
            return -1;
    }
    if (stamps != Py_None) {
        PyObject *validity, *data;
        x->has_stamps = 1;
        x->stamps.name = "timestamps";
        if (!parse(stamps, "OOnn;timestamps are (validity, values, offset, length)",
                              &validity, &data, &x->stamps.offset, &x->stamps.length) ||
            fixed_open(&x->stamps, validity, data, 8, "values") < 0)
            return -1;
    }
    if (headers != Py_None) {
        PyObject *validity, *offsets, *hkeys, *hvalues;
        x->has_headers = 1;
        x->lists.name = "headers";
        if (!parse(headers,
                              "OOnnOO;headers are (validity, offsets, offset, length, keys, values)",
                              &validity, &offsets, &x->lists.offset, &x->lists.length, &hkeys,
                              &hvalues) ||
            fixed_open(&x->lists, validity, offsets, 4, "offsets") < 0 ||
            binary_open(&x->hkeys, "header keys", hkeys) < 0 ||
            binary_open(&x->hvalues, "header values", hvalues) < 0)
            return -1;
        if (x->hkeys.length != x->hvalues.length) {
            PyErr_Format(PyExc_ValueError, "header keys: %zd rows, header values have %zd",
                         x->hkeys.length, x->hvalues.length);
            return -1;
        }
    }
    Py_ssize_t n = x->values.length;
    if ((x->has_keys && same_rows("keys", x->keys.length, n) < 0) ||
        (x->has_stamps && same_rows("timestamps", x->stamps.length, n) < 0) ||
        (x->has_headers && same_rows("headers", x->lists.length, n) < 0))
        return -1;
    x->positions = n;
    if (rows != Py_None) {
        if (PyObject_GetBuffer(rows, &x->rows_view, PyBUF_SIMPLE) < 0) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "rows: rows is not a contiguous buffer");
            return -1;
        }
        x->rows_held = 1;
        if (x->rows_view.len % 4) {
            PyErr_SetString(PyExc_ValueError, "rows: buffer length is not a multiple of 4");
            return -1;
        }
        x->rows = x->rows_view.buf;
        x->positions = x->rows_view.len / 4;
    }
    return 0;
}

static void
ctx_close(ctx_t *x)
{
    col_release(&x->values);
    col_release(&x->keys);
    col_release(&x->stamps);
    col_release(&x->lists);
    col_release(&x->hkeys);
    col_release(&x->hvalues);
    if (x->rows_held)
        PyBuffer_Release(&x->rows_view);
}

/* ---- the record loop (no GIL: errors are recorded in the context) ------------------------ */

static inline int
fail(ctx_t *x, int err, const char *name, int64_t a, int64_t b)
{
    x->err = err;
    x->err_name = name;
    x->err_a = a;
    x->err_b = b;
    return -1;
}

/* Row `row` of a binary column: *at and *len (-1: null); -1 on offsets outside the data. */
static inline int
field_of(ctx_t *x, const col_t *c, Py_ssize_t row, const uint8_t **at, int64_t *len)
{
    Py_ssize_t i = c->offset + row;
    if (!is_valid(c->validity, i)) {
        *len = -1;
        return 0;
    }
    int32_t start = rd_i32(c->values + 4 * i), end = rd_i32(c->values + 4 * i + 4);
    if (start < 0 || end < start || (Py_ssize_t)end > c->data_len)
        return fail(x, ERR_OFFSETS, c->name, row, 0);
    *at = c->data + start;
    *len = end - start;
    return 0;
}

static inline int
row_at(ctx_t *x, Py_ssize_t position, Py_ssize_t *row)
{
    if (x->rows == NULL) {
        *row = position;
        return 0;
    }
    int32_t r = rd_i32(x->rows + 4 * position);
    if (r < 0 || r >= x->values.length)
        return fail(x, ERR_ROW, NULL, r, position);
    *row = r;
    return 0;
}

static inline int64_t
timestamp_of(const ctx_t *x, Py_ssize_t row)
{
    const col_t *c = &x->stamps;
    if (!x->has_stamps || !is_valid(c->validity, c->offset + row))
        return x->now_ms;
    return rd_i64(c->values + 8 * (c->offset + row));
}

/* The fields of one record, read once. */
typedef struct {
    int64_t ts, delta, key_len, value_len, low, high;
    const uint8_t *key, *value;
    Py_ssize_t body, size;
} rec_t;

/* One header entry j of row `row`: its key and value, checked. */
static inline int
header_of(ctx_t *x, Py_ssize_t row, Py_ssize_t j, const uint8_t **name, int64_t *name_len,
          const uint8_t **value, int64_t *value_len)
{
    if (field_of(x, &x->hkeys, j, name, name_len) < 0)
        return -1;
    if (*name_len < 0)
        return fail(x, ERR_NULL_NAME, NULL, row, 0);
    return field_of(x, &x->hvalues, j, value, value_len);
}

/* Read and check the record of `row`, index `index` in the batch, and its size. */
static int
measure(ctx_t *x, Py_ssize_t row, Py_ssize_t index, int64_t base, int first, rec_t *r)
{
    r->ts = timestamp_of(x, row);
    if (first)
        base = r->ts;
    if ((base > 0 && r->ts < INT64_MIN + base) || (base < 0 && r->ts > INT64_MAX + base))
        return fail(x, ERR_TIMESTAMP, NULL, row, 0);
    r->delta = r->ts - base;
    r->key_len = -1;
    r->key = r->value = NULL;
    if (x->has_keys && field_of(x, &x->keys, row, &r->key, &r->key_len) < 0)
        return -1;
    if (field_of(x, &x->values, row, &r->value, &r->value_len) < 0)
        return -1;
    r->low = r->high = 0;
    Py_ssize_t headers_size = 0;
    if (x->has_headers) {
        const col_t *c = &x->lists;
        Py_ssize_t i = c->offset + row;
        if (is_valid(c->validity, i)) {
            r->low = rd_i32(c->values + 4 * i);
            r->high = rd_i32(c->values + 4 * i + 4);
            if (r->low < 0 || r->high < r->low || r->high > x->hkeys.length)
                return fail(x, ERR_LIST_OFFSETS, NULL, row, 0);
        }
        for (int64_t j = r->low; j < r->high; j++) {
            const uint8_t *name, *value;
            int64_t name_len, value_len;
            if (header_of(x, row, (Py_ssize_t)j, &name, &name_len, &value, &value_len) < 0)
                return -1;
            headers_size += field_size(name_len) + field_size(value_len);
            if (headers_size > INT32_MAX)
                return fail(x, ERR_TOO_LARGE, NULL, row, 0);
        }
    }
    int64_t body = 1 + varint_size(r->delta) + varint_size(index) + field_size(r->key_len) +
                   field_size(r->value_len) + varint_size(r->high - r->low) + headers_size;
    if (body > INT32_MAX)
        return fail(x, ERR_TOO_LARGE, NULL, row, 0);
    r->body = (Py_ssize_t)body;
    r->size = varint_size(body) + r->body;
    return 0;
}

static inline uint8_t *
put_field(uint8_t *p, const uint8_t *src, int64_t length)
{
    p += write_varint(p, length);
    if (length > 0) {
        memcpy(p, src, (size_t)length);
        p += length;
    }
    return p;
}

/* Write the measured record r at p (room for r->size bytes); the headers are read again,
 * so each is checked against the room left. */
static int
write_record(ctx_t *x, Py_ssize_t row, Py_ssize_t index, const rec_t *r, uint8_t *p)
{
    uint8_t *end = p + r->size;
    p += write_varint(p, r->body);
    *p++ = 0; /* record attributes (unused) */
    p += write_varint(p, r->delta);
    p += write_varint(p, index);
    p = put_field(p, r->key, r->key_len);
    p = put_field(p, r->value, r->value_len);
    p += write_varint(p, r->high - r->low);
    for (int64_t j = r->low; j < r->high; j++) {
        const uint8_t *name, *value;
        int64_t name_len, value_len;
        if (header_of(x, row, (Py_ssize_t)j, &name, &name_len, &value, &value_len) < 0)
            return -1;
        if (field_size(name_len) + field_size(value_len) > end - p)
            return fail(x, ERR_CHANGED, NULL, 0, 0);
        p = put_field(p, name, name_len);
        p = put_field(p, value, value_len);
    }
    return p == end ? 0 : fail(x, ERR_CHANGED, NULL, 0, 0);
}

static void
raise_error(const ctx_t *x)
{
    switch (x->err) {
    case ERR_ROW:
        PyErr_Format(PyExc_ValueError, "rows: index %lld at position %lld out of range",
                     (long long)x->err_a, (long long)x->err_b);
        break;
    case ERR_OFFSETS:
        PyErr_Format(PyExc_ValueError, "%s: offsets of row %lld lie outside its data",
                     x->err_name, (long long)x->err_a);
        break;
    case ERR_LIST_OFFSETS:
        PyErr_Format(PyExc_ValueError,
                     "headers: offsets of row %lld lie outside the header columns",
                     (long long)x->err_a);
        break;
    case ERR_NULL_NAME:
        PyErr_Format(PyExc_ValueError, "headers: a header key of row %lld is null",
                     (long long)x->err_a);
        break;
    case ERR_TIMESTAMP:
        PyErr_Format(PyExc_ValueError,
                     "timestamps: row %lld lies too far from the batch's first",
                     (long long)x->err_a);
        break;
    case ERR_TOO_LARGE:
        PyErr_Format(PyExc_ValueError, "record of row %lld exceeds 2 GiB", (long long)x->err_a);
        break;
    default:
        PyErr_SetString(PyExc_ValueError, "the column buffers changed while being encoded");
    }
}

static PyObject *
encode_records(PyObject *self, PyObject *args)
{
    PyObject *values, *keys, *stamps, *headers, *rows;
    Py_ssize_t start;
    long long max_bytes, now_ms;
    if (!PyArg_ParseTuple(args, "OOOOOnLL", &values, &keys, &stamps, &headers, &rows, &start,
                          &max_bytes, &now_ms))
        return NULL;
    ctx_t x;
    memset(&x, 0, sizeof(x));
    x.now_ms = now_ms;
    PyObject *section = NULL, *result = NULL;
    if (ctx_open(&x, values, keys, stamps, headers, rows) < 0)
        goto done;
    if (start < 0 || start > x.positions) {
        PyErr_Format(PyExc_ValueError, "start %zd out of range", start);
        goto done;
    }
    Py_ssize_t count = 0, total = 0;
    int64_t base = -1, max_ts = -1;
    int failed = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t position = start; position < x.positions; position++) {
        Py_ssize_t row;
        rec_t r;
        if (row_at(&x, position, &row) < 0 || measure(&x, row, count, base, !count, &r) < 0) {
            /* a bad row after the first ends the batch: the call from it raises */
            failed = !count;
            break;
        }
        if (count && (long long)BATCH_OVERHEAD + total + r.size > max_bytes)
            break;
        if (!count)
            base = max_ts = r.ts;
        else if (r.ts > max_ts)
            max_ts = r.ts;
        total += r.size;
        count++;
    }
    Py_END_ALLOW_THREADS
    if (failed) {
        raise_error(&x);
        goto done;
    }
    section = PyBytes_FromStringAndSize(NULL, total);
    if (section == NULL)
        goto done;
    uint8_t *out = (uint8_t *)PyBytes_AS_STRING(section), *end = out + total;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t k = 0; k < count; k++) {
        Py_ssize_t row;
        rec_t r;
        if (row_at(&x, start + k, &row) < 0 || measure(&x, row, k, base, 0, &r) < 0) {
            failed = 1;
            break;
        }
        if (r.size > end - out) {
            failed = fail(&x, ERR_CHANGED, NULL, 0, 0);
            break;
        }
        if (write_record(&x, row, k, &r, out) < 0) {
            failed = 1;
            break;
        }
        out += r.size;
    }
    if (!failed && out != end)
        failed = fail(&x, ERR_CHANGED, NULL, 0, 0);
    Py_END_ALLOW_THREADS
    if (failed) {
        raise_error(&x);
        goto done;
    }
    result = Py_BuildValue("(OnLLn)", section, count, (long long)base, (long long)max_ts,
                           start + count);
done:
    Py_XDECREF(section);
    ctx_close(&x);
    return result;
}

static PyMethodDef methods[] = {
    {"encode_records", encode_records, METH_VARARGS,
     "encode_records(values, keys, timestamps, headers, rows, start, max_bytes, now_ms)"
     " -> (section, count, base_timestamp, max_timestamp, next)"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_column_records", "The record loop of column_records, in C.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__column_records(void)
{
    return PyModule_Create(&module);
}
