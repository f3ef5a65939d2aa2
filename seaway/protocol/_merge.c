/*
 * seaway.protocol._merge: the record loop of seaway/protocol/batch_merge.py in C.
 *
 * Joining uncompressed record batches rewrites two varints per record (timestamp delta,
 * offset delta) and copies the rest of the record as it is. In Python that loop costs
 * ~3 us per record; here ~0.05. batch_merge.py holds the reference implementation
 * (_merge_records_py) and uses it when this module is not built; tests compare the two.
 *
 * merge_records(parts) -> (records: bytes, count: int, max_delta: int)
 *   parts: sequence of (records section: bytes-like, record count: int, ts shift: int)
 *   Each record's timestamp delta is shifted by its part's shift; offset deltas run
 *   0..count-1 across all parts. max_delta is the largest shifted timestamp delta.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#include "_varint.h"

static PyObject *
merge_records(PyObject *self, PyObject *args)
{
    PyObject *parts_arg;
    if (!PyArg_ParseTuple(args, "O", &parts_arg))
        return NULL;
    PyObject *parts = PySequence_Fast(parts_arg, "parts must be a sequence");
    if (parts == NULL)
        return NULL;
    Py_ssize_t nparts = PySequence_Fast_GET_SIZE(parts);
    Py_buffer *views = PyMem_Calloc(nparts ? nparts : 1, sizeof(Py_buffer));
    long long *counts = PyMem_Calloc(nparts ? nparts : 1, sizeof(long long));
    long long *shifts = PyMem_Calloc(nparts ? nparts : 1, sizeof(long long));
    PyObject *result = NULL, *out = NULL;
    Py_ssize_t got = 0, capacity = 0;
    if (views == NULL || counts == NULL || shifts == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < nparts; i++) {
        PyObject *item = PySequence_Fast_GET_ITEM(parts, i);
        PyObject *data;
        if (!PyArg_ParseTuple(item, "OLL", &data, &counts[i], &shifts[i]))
            goto done;
        if (PyObject_GetBuffer(data, &views[i], PyBUF_SIMPLE) < 0)
            goto done;
        got = i + 1;
        /* A rewritten record grows by at most 10 (timestamp) + 5 (offset) + 5 (length). */
        capacity += views[i].len + 20 * (Py_ssize_t)counts[i];
    }
    out = PyBytes_FromStringAndSize(NULL, capacity);
    if (out == NULL)
        goto done;
    uint8_t *dst = (uint8_t *)PyBytes_AS_STRING(out);
    Py_ssize_t written = 0;
    int64_t index = 0, max_delta = INT64_MIN;
    for (Py_ssize_t i = 0; i < nparts; i++) {
        const uint8_t *src = views[i].buf;
        Py_ssize_t len = views[i].len, pos = 0;
        for (long long r = 0; r < counts[i]; r++) {
            int64_t length, ts_delta, offset_delta;
            if (read_varint(src, len, &pos, &length) < 0 || length < 1 || pos + length > len)
                goto malformed;
            Py_ssize_t end = pos + length, at = pos + 1;
            if (read_varint(src, end, &at, &ts_delta) < 0 ||
                read_varint(src, end, &at, &offset_delta) < 0)
                goto malformed;
            uint8_t head[16];
            Py_ssize_t head_len = 0;
            int64_t shifted = ts_delta + (int64_t)shifts[i];
            head[head_len++] = src[pos]; /* record attributes */
            head_len += write_varint(head + head_len, shifted);
            head_len += write_varint(head + head_len, index);
            Py_ssize_t rest = end - at;
            written += write_varint(dst + written, (int64_t)(head_len + rest));
            memcpy(dst + written, head, head_len);
            written += head_len;
            memcpy(dst + written, src + at, rest);
            written += rest;
            if (shifted > max_delta)
                max_delta = shifted;
            index++;
            pos = end;
        }
    }
    if (_PyBytes_Resize(&out, written) < 0)
        goto done;
    result = Py_BuildValue("(NLL)", out, (long long)index, (long long)max_delta);
    out = NULL;
    goto done;
malformed:
    PyErr_SetString(PyExc_ValueError, "malformed records");
done:
    Py_XDECREF(out);
    for (Py_ssize_t i = 0; i < got; i++)
        PyBuffer_Release(&views[i]);
    PyMem_Free(views);
    PyMem_Free(counts);
    PyMem_Free(shifts);
    Py_DECREF(parts);
    return result;
}

static PyMethodDef methods[] = {
    {"merge_records", merge_records, METH_VARARGS,
     "merge_records(parts) -> (records, count, max_delta): join record sections."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_merge", "The record loop of batch_merge, in C.", -1, methods,
};

PyMODINIT_FUNC
PyInit__merge(void)
{
    return PyModule_Create(&module);
}
