/*
 * seaway.kafka._murmur2: Java's default partitioner over a whole Arrow binary column.
 *
 * partitions_for_keys(keys, partitions) -> bytes
 *   keys: (validity, offsets, data, offset, length), a binary column's buffers
 *   One int32 (little-endian) a row: (murmur2(key) & 0x7FFFFFFF) % partitions, -1 for a
 *   null key. seaway/kafka/partitioner.py is the reference (murmur2, partition_for_key);
 *   the buffers are checked as seaway/protocol/column_records.py checks them.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* Kafka's Utils.murmur2 (seed 0x9747b28c). */
static inline uint32_t
murmur2(const uint8_t *data, Py_ssize_t length)
{
    const uint32_t m = 0x5bd1e995u;
    uint32_t h = 0x9747b28cu ^ (uint32_t)length;
    Py_ssize_t whole = length - (length & 3);
    for (Py_ssize_t i = 0; i < whole; i += 4) {
        uint32_t k = (uint32_t)data[i] | (uint32_t)data[i + 1] << 8 |
                     (uint32_t)data[i + 2] << 16 | (uint32_t)data[i + 3] << 24;
        k *= m;
        k ^= k >> 24;
        k *= m;
        h *= m;
        h ^= k;
    }
    switch (length & 3) {
    case 3:
        h ^= (uint32_t)data[whole + 2] << 16;
        /* fall through */
    case 2:
        h ^= (uint32_t)data[whole + 1] << 8;
        /* fall through */
    case 1:
        h ^= (uint32_t)data[whole];
        h *= m;
    }
    h ^= h >> 13;
    h *= m;
    h ^= h >> 15;
    return h;
}

static int
get_view(PyObject *obj, Py_buffer *view, int *held, const char *what)
{
    if (obj == Py_None)
        return 0;
    if (PyObject_GetBuffer(obj, view, PyBUF_SIMPLE) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_ValueError, "keys: %s is not a contiguous buffer", what);
        return -1;
    }
    *held = 1;
    return 0;
}

static int
check_size(const Py_buffer *view, int held, Py_ssize_t need, const char *what)
{
    if (!held ? need != 0 : view->len < need) {
        PyErr_Format(PyExc_ValueError, held ? "keys: %s buffer too short" : "keys: %s buffer missing",
                     what);
        return -1;
    }
    return 0;
}

static PyObject *
partitions_for_keys(PyObject *self, PyObject *args)
{
    PyObject *keys, *validity_obj, *offsets_obj, *data_obj;
    Py_ssize_t offset, length;
    long long partitions;
    if (!PyArg_ParseTuple(args, "O!L", &PyTuple_Type, &keys, &partitions) ||
        !PyArg_ParseTuple(keys, "OOOnn;keys are (validity, offsets, data, offset, length)",
                          &validity_obj, &offsets_obj, &data_obj, &offset, &length))
        return NULL;
    if (partitions < 1) {
        PyErr_Format(PyExc_ValueError, "partitions must be positive, not %lld", partitions);
        return NULL;
    }
    if (offset < 0 || length < 0) {
        PyErr_SetString(PyExc_ValueError, "keys: negative offset or length");
        return NULL;
    }
    Py_buffer view[3];
    int held[3] = {0, 0, 0};
    PyObject *out = NULL;
    Py_ssize_t end = offset > PY_SSIZE_T_MAX / 16 - length ? PY_SSIZE_T_MAX / 16 + 1
                                                           : offset + length;
    if (get_view(validity_obj, &view[0], &held[0], "validity") < 0 ||
        get_view(offsets_obj, &view[1], &held[1], "offsets") < 0 ||
        (held[0] && check_size(&view[0], 1, length ? end / 8 + (end % 8 != 0) : 0, "validity") < 0) ||
        check_size(&view[1], held[1], length ? (end + 1) * 4 : 0, "offsets") < 0 ||
        get_view(data_obj, &view[2], &held[2], "data") < 0)
        goto done;
    out = PyBytes_FromStringAndSize(NULL, length * 4);
    if (out == NULL)
        goto done;
    const uint8_t *validity = held[0] ? view[0].buf : NULL, *offsets = view[1].buf;
    const uint8_t *data = held[2] ? view[2].buf : NULL;
    Py_ssize_t data_len = held[2] ? view[2].len : 0, bad = -1;
    uint8_t *p = (uint8_t *)PyBytes_AS_STRING(out);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t row = 0; row < length; row++, p += 4) {
        Py_ssize_t i = offset + row;
        int32_t partition = -1;
        if (validity == NULL || ((validity[i >> 3] >> (i & 7)) & 1)) {
            int32_t start, stop;
            memcpy(&start, offsets + 4 * i, 4);
            memcpy(&stop, offsets + 4 * i + 4, 4);
            if (start < 0 || stop < start || stop > data_len) {
                bad = row;
                break;
            }
            partition = (int32_t)((murmur2(data + start, stop - start) & 0x7FFFFFFFu) %
                                  (unsigned long long)partitions);
        }
        uint32_t u = (uint32_t)partition;
        p[0] = (uint8_t)u;
        p[1] = (uint8_t)(u >> 8);
        p[2] = (uint8_t)(u >> 16);
        p[3] = (uint8_t)(u >> 24);
    }
    Py_END_ALLOW_THREADS
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "keys: offsets of row %zd lie outside its data", bad);
        Py_CLEAR(out);
    }
done:
    for (int k = 0; k < 3; k++)
        if (held[k])
            PyBuffer_Release(&view[k]);
    return out;
}

static PyMethodDef methods[] = {
    {"partitions_for_keys", partitions_for_keys, METH_VARARGS,
     "partitions_for_keys(keys, partitions) -> int32 partition a row (-1: null key)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_murmur2", "Kafka's murmur2 partitioner over a column, in C.", -1,
    methods,
};

PyMODINIT_FUNC
PyInit__murmur2(void)
{
    return PyModule_Create(&module);
}
