/* The cost each pixel of a drawn window pays for its class, gathered in one pass.
 *
 * `Costs.cost` in vision/nanku_pixels.py states what is gathered and calls it, as
 * `_nanku_costs.pick`. The values are copied, not computed, so the window of costs is the
 * plain form's (`np.take` on the cost maps by class and pixel; tests/vision/nanku/
 * test_nanku_drawing.py), and numpy sums it as before. One pass replaces building a window of
 * flat indices, a multiply-add over it and a gather: a frame's pose searches and candidates score
 * some thousands of windows, each of tens of thousands of pixels.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

/* The maps are stored pixel by pixel (height, width, planes): a pixel's costs share a cache line. */
static void pick(const float *maps, int64_t planes, int64_t height, int64_t width, const uint8_t *classes,
                 int64_t left, int64_t top, int64_t w, int64_t h, float *out)
{
    (void)height;
    for (int64_t i = 0; i < h; i++) {
        const uint8_t *row = classes + i * w;
        const float *start = maps + ((top + i) * width + left) * planes;
        float *into = out + i * w;
        for (int64_t j = 0; j < w; j++)
            into[j] = start[j * planes + row[j]];
    }
}

/* numpy's float32 sum of a contiguous array (its pairwise summation: eight accumulators over
 * blocks of up to 128, halves above that), so that a window's total is the one numpy gives. */
static float pairwise_sum(const float *a, int64_t n)
{
    if (n < 8) {
        float res = 0.0f;
        for (int64_t i = 0; i < n; i++)
            res += a[i];
        return res;
    }
    if (n <= 128) {
        float r[8];
        int64_t i;
        for (int j = 0; j < 8; j++)
            r[j] = a[j];
        for (i = 8; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; j++)
                r[j] += a[i + j];
        float res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; i++)
            res += a[i];
        return res;
    }
    int64_t n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum(a, n2) + pairwise_sum(a + n2, n - n2);
}

static int sized(Py_buffer *buffer, Py_ssize_t itemsize, Py_ssize_t at_least, const char *name)
{
    if (buffer->itemsize != itemsize || buffer->len / itemsize < at_least || !PyBuffer_IsContiguous(buffer, 'C')) {
        PyErr_Format(PyExc_ValueError, "cost pick: %s must be contiguous and hold %zd items of %zd bytes", name,
                     at_least, itemsize);
        return 0;
    }
    return 1;
}

static PyObject *py_pick(PyObject *self, PyObject *args)
{
    Py_buffer b[3];
    Py_ssize_t planes, height, width, left, top, w, h;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*nnny*nnnnw*", &b[0], &planes, &height, &width, &b[1], &left, &top, &w, &h,
                          &b[2]))
        return NULL;
    PyObject *result = NULL;
    if (planes < 1 || height < 1 || width < 1 || w < 0 || h < 0 || left < 0 || top < 0 || left + w > width
        || top + h > height) {
        PyErr_SetString(PyExc_ValueError, "cost pick: a window inside the maps");
        goto done;
    }
    if (!(sized(&b[0], 4, planes * height * width, "maps") && sized(&b[1], 1, w * h, "classes")
          && sized(&b[2], 4, w * h, "out")))
        goto done;
    const uint8_t *classes = b[1].buf;
    for (Py_ssize_t i = 0; i < w * h; i++) {
        if (classes[i] >= planes) {
            PyErr_SetString(PyExc_ValueError, "cost pick: a class without a cost map");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    pick(b[0].buf, planes, height, width, classes, left, top, w, h, b[2].buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < 3; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

/* The window's costs gathered as `pick` does, and summed as numpy sums them. */
static PyObject *py_picked_total(PyObject *self, PyObject *args)
{
    Py_buffer b[2];
    Py_ssize_t planes, height, width, left, top, w, h;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*nnny*nnnn", &b[0], &planes, &height, &width, &b[1], &left, &top, &w, &h))
        return NULL;
    PyObject *result = NULL;
    float *picked = NULL;
    if (planes < 1 || height < 1 || width < 1 || w < 0 || h < 0 || left < 0 || top < 0 || left + w > width
        || top + h > height) {
        PyErr_SetString(PyExc_ValueError, "cost pick: a window inside the maps");
        goto done;
    }
    if (!(sized(&b[0], 4, planes * height * width, "maps") && sized(&b[1], 1, w * h, "classes")))
        goto done;
    const uint8_t *classes = b[1].buf;
    for (Py_ssize_t i = 0; i < w * h; i++) {
        if (classes[i] >= planes) {
            PyErr_SetString(PyExc_ValueError, "cost pick: a class without a cost map");
            goto done;
        }
    }
    picked = PyMem_RawMalloc(sizeof(float) * (w * h > 0 ? w * h : 1));
    if (!picked) {
        PyErr_NoMemory();
        goto done;
    }
    float total;
    Py_BEGIN_ALLOW_THREADS
    pick(b[0].buf, planes, height, width, classes, left, top, w, h, picked);
    total = 0.0f + pairwise_sum(picked, w * h);
    Py_END_ALLOW_THREADS
    result = PyFloat_FromDouble((double)total);
done:
    PyMem_RawFree(picked);
    for (int i = 0; i < 2; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

/* A window of a (rows, width) float32 array summed as numpy sums the window copied out. */
static PyObject *py_window_total(PyObject *self, PyObject *args)
{
    Py_buffer b;
    Py_ssize_t rows, width, left, top, w, h;
    memset(&b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*nnnnnn", &b, &rows, &width, &left, &top, &w, &h))
        return NULL;
    PyObject *result = NULL;
    float *copy = NULL;
    if (rows < 1 || width < 1 || w < 0 || h < 0 || left < 0 || top < 0 || left + w > width || top + h > rows) {
        PyErr_SetString(PyExc_ValueError, "window total: a window inside the array");
        goto done;
    }
    if (!sized(&b, 4, rows * width, "values"))
        goto done;
    copy = PyMem_RawMalloc(sizeof(float) * (w * h > 0 ? w * h : 1));
    if (!copy) {
        PyErr_NoMemory();
        goto done;
    }
    float total;
    const float *values = b.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < h; i++)
        memcpy(copy + i * w, values + (top + i) * width + left, sizeof(float) * w);
    total = 0.0f + pairwise_sum(copy, w * h);
    Py_END_ALLOW_THREADS
    result = PyFloat_FromDouble((double)total);
done:
    PyMem_RawFree(copy);
    PyBuffer_Release(&b);
    return result;
}

/* A class's cost of each pixel, from the pixel (3 floats) and its brightness share of the colour:
 * the share clipped to [low, high], the squared distance to that shade of the colour over
 * `divisor`, capped; numpy's float32 steps in numpy's order (`colour_cost` in
 * vision/nanku_pixels.py). */
static void shade_costs(const float *pixels, const float *share, int64_t count, const float *colour, float low,
                        float high, float divisor, float cap, float *out)
{
    for (int64_t i = 0; i < count; i++) {
        float s = share[i];
        s = s < low ? low : s;
        s = s > high ? high : s;
        const float *p = pixels + 3 * i;
        float m0 = p[0] - s * colour[0], m1 = p[1] - s * colour[1], m2 = p[2] - s * colour[2];
        float sum = 0.0f + m0 * m0;
        sum += m1 * m1;
        sum += m2 * m2;
        float cost = sum / divisor;
        out[i] = cost < cap ? cost : cap;
    }
}

static PyObject *py_shade_costs(PyObject *self, PyObject *args)
{
    Py_buffer b[4];
    Py_ssize_t count;
    float low, high, divisor, cap;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*y*ny*ffffw*", &b[0], &b[1], &count, &b[2], &low, &high, &divisor, &cap, &b[3]))
        return NULL;
    PyObject *result = NULL;
    if (count >= 0 && sized(&b[0], 4, 3 * count, "pixels") && sized(&b[1], 4, count, "shares")
        && sized(&b[2], 4, 3, "colour") && sized(&b[3], 4, count, "out")) {
        Py_BEGIN_ALLOW_THREADS
        shade_costs(b[0].buf, b[1].buf, count, b[2].buf, low, high, divisor, cap, b[3].buf);
        Py_END_ALLOW_THREADS
        result = Py_NewRef(Py_None);
    }
    for (int i = 0; i < 4; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"shade_costs", py_shade_costs, METH_VARARGS,
     "shade_costs(pixels, shares, count, colour, low, high, divisor, cap, out): a class's pixel costs "
     "(see colour_cost in vision/nanku_pixels.py)."},
    {"picked_total", py_picked_total, METH_VARARGS,
     "picked_total(maps, planes, height, width, classes, left, top, w, h): the sum (float32, as numpy's) of "
     "what pick gathers."},
    {"window_total", py_window_total, METH_VARARGS,
     "window_total(values, rows, width, left, top, w, h): the sum (float32, as numpy's) of a window."},
    {"pick", py_pick, METH_VARARGS,
     "pick(maps, planes, height, width, classes, left, top, w, h, out): out[i, j] = maps[top + i, left + j, "
     "classes[i, j]] (see vision/nanku_pixels.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_nanku_costs",
                                    "Drawn windows' pixel costs for Nanku (see vision/nanku_pixels.py).", -1, methods};

PyMODINIT_FUNC PyInit__nanku_costs(void)
{
    return PyModule_Create(&module);
}
