/* Rings of discs in one pass each: the ring a disc shows below the next one up with the median
 * colour of its pixels, and the labels counted in a ring inside a circle.
 *
 * `ring_medians` in vision/varanasi_disc_colours.py states what it gives and calls it, as
 * `_varanasi_rings.ring_medians`, and `ring_counts` in vision/varanasi_pixels.py calls
 * `_varanasi_rings.ring_counts`. The circle tests are numpy's in float64, in the same order
 * (built with -ffp-contract=off, setup.py), and the medians are whole numbers or halves, so it
 * gives the plain numpy form's values (tests/vision/varanasi/test_ring_medians.py). One pass
 * replaces some twenty numpy and OpenCV calls a disc (masks of the window, three histograms and
 * their cumulative sums), whose fixed costs made up most of the time on rings this small.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#define CHANNELS 3
#define LEVELS 256

/* The value of rank `rank` (from 0) among the pixels counted in `histogram`. */
static int ranked(const int64_t *histogram, int64_t rank)
{
    int64_t seen = 0;
    for (int value = 0; value < LEVELS; value++) {
        seen += histogram[value];
        if (seen > rank)
            return value;
    }
    return LEVELS - 1;
}

/* The window of the circle of radius `limit` about (cx, cy) within the image (as
 * `circle_window` cuts it): rows y0..y1 and columns x0..x1, the ends excluded. */
static void window(double cx, double cy, double limit, Py_ssize_t width, Py_ssize_t height,
                   int64_t *y0, int64_t *y1, int64_t *x0, int64_t *x1)
{
    *y0 = (int64_t)floor(cy - limit);
    *y1 = (int64_t)ceil(cy + limit) + 1;
    *x0 = (int64_t)floor(cx - limit);
    *x1 = (int64_t)ceil(cx + limit) + 1;
    *y0 = *y0 < 0 ? 0 : *y0;
    *x0 = *x0 < 0 ? 0 : *x0;
    *y1 = *y1 > height ? height : *y1;
    *x1 = *x1 > width ? width : *x1;
}

static PyObject *py_ring_medians(PyObject *self, PyObject *args)
{
    Py_buffer lab = {0}, labels = {0};
    Py_ssize_t width, height;
    int other, has_above;
    double cx, cy, limit, limit2, ax, ay, away2, share;
    Py_ssize_t least;
    if (!PyArg_ParseTuple(args, "y*y*nniddddpddddn", &lab, &labels, &width, &height, &other, &cx, &cy, &limit,
                          &limit2, &has_above, &ax, &ay, &away2, &share, &least))
        return NULL;
    PyObject *result = NULL;
    if (width < 1 || height < 1 || lab.itemsize != 1 || labels.itemsize != 1 || lab.len < width * height * CHANNELS
        || labels.len < width * height || !PyBuffer_IsContiguous(&lab, 'C') || !PyBuffer_IsContiguous(&labels, 'C')) {
        PyErr_SetString(PyExc_ValueError, "ring medians: contiguous 8-bit Lab and labels of the image's size");
        goto done;
    }
    int64_t y0, y1, x0, x1;
    window(cx, cy, limit, width, height, &y0, &y1, &x0, &x1);
    int64_t region = 0, coloured = 0;
    int64_t region_histogram[CHANNELS][LEVELS], coloured_histogram[CHANNELS][LEVELS];
    memset(region_histogram, 0, sizeof region_histogram);
    memset(coloured_histogram, 0, sizeof coloured_histogram);
    const uint8_t *pixels = lab.buf, *label = labels.buf;
    for (int64_t y = y0; y < y1; y++) {
        double dy = (double)y - cy;
        double dy2 = dy * dy;
        for (int64_t x = x0; x < x1; x++) {
            double dx = (double)x - cx;
            if (!(dx * dx + dy2 <= limit2))
                continue;
            if (has_above) {
                double ex = (double)x - ax, ey = (double)y - ay;
                if (!(ex * ex + ey * ey > away2))
                    continue;
            }
            const uint8_t *pixel = pixels + (y * width + x) * CHANNELS;
            int is_coloured = label[y * width + x] != other;
            region++;
            coloured += is_coloured;
            for (int c = 0; c < CHANNELS; c++) {
                region_histogram[c][pixel[c]]++;
                coloured_histogram[c][pixel[c]] += is_coloured;
            }
        }
    }
    /* The coloured pixels, unless too few of the region's: then the whole region. */
    double shown = share * (double)region;
    if (shown < (double)least)
        shown = (double)least;
    int use_coloured = (double)coloured >= shown;
    int64_t count = use_coloured ? coloured : region;
    if (count < least) {
        result = Py_BuildValue("(nO)", (Py_ssize_t)count, Py_None);
        goto done;
    }
    float medians[CHANNELS];
    for (int c = 0; c < CHANNELS; c++) {
        const int64_t *histogram = use_coloured ? coloured_histogram[c] : region_histogram[c];
        float upper = (float)ranked(histogram, count / 2);
        medians[c] = count % 2 ? upper : ((float)ranked(histogram, count / 2 - 1) + upper) / 2.0f;
    }
    result = Py_BuildValue("(n(fff))", (Py_ssize_t)count, medians[0], medians[1], medians[2]);
done:
    PyBuffer_Release(&lab);
    PyBuffer_Release(&labels);
    return result;
}

static PyObject *py_ring_counts(PyObject *self, PyObject *args)
{
    Py_buffer labels = {0}, counts = {0};
    Py_ssize_t width, height;
    double cx, cy, limit, inner2, outer2;
    if (!PyArg_ParseTuple(args, "y*nndddddw*", &labels, &width, &height, &cx, &cy, &limit, &inner2, &outer2,
                          &counts))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t bins = counts.len / 4;
    if (width < 1 || height < 1 || labels.itemsize != 1 || labels.len < width * height || counts.itemsize != 4
        || !PyBuffer_IsContiguous(&labels, 'C') || !PyBuffer_IsContiguous(&counts, 'C')) {
        PyErr_SetString(PyExc_ValueError, "ring counts: contiguous 8-bit labels of the image's size, float32 counts");
        goto done;
    }
    int64_t y0, y1, x0, x1;
    window(cx, cy, limit, width, height, &y0, &y1, &x0, &x1);
    int64_t seen[LEVELS];
    memset(seen, 0, sizeof seen);
    const uint8_t *label = labels.buf;
    for (int64_t y = y0; y < y1; y++) {
        double dy = (double)y - cy;
        double dy2 = dy * dy;
        for (int64_t x = x0; x < x1; x++) {
            double dx = (double)x - cx;
            double distance2 = dx * dx + dy2;
            if (distance2 <= inner2 && distance2 >= outer2)
                seen[label[y * width + x]]++;
        }
    }
    float *out = counts.buf;
    for (Py_ssize_t bin = 0; bin < bins; bin++)
        out[bin] = bin < LEVELS ? (float)seen[bin] : 0.0f;
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&labels);
    PyBuffer_Release(&counts);
    return result;
}

static PyMethodDef methods[] = {
    {"ring_counts", py_ring_counts, METH_VARARGS,
     "ring_counts(labels, width, height, cx, cy, limit, inner2, outer2, counts): fills counts (see "
     "vision/varanasi_pixels.py)."},
    {"ring_medians", py_ring_medians, METH_VARARGS,
     "ring_medians(lab, labels, width, height, other, cx, cy, limit, limit2, has_above, ax, ay, away2, share, "
     "least) -> (count, medians or None) (see vision/varanasi_disc_colours.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_rings",
                                    "Ring medians of Varanasi discs (see vision/varanasi_disc_colours.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__varanasi_rings(void)
{
    return PyModule_Create(&module);
}
