/* Rings of discs in one pass each: the ring a disc shows below the next one up with the median
 * colour of its pixels, the labels counted in a ring inside a circle, and the edge of a disc's
 * top face on rays across its rim (`face_edge_points`, called by `_face_edge_fit` in
 * vision/varanasi_colour_chain.py, checked by tests/vision/varanasi/test_fast_paths.py).
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
#include <stdlib.h>
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

/* The points of a disc's top face edge, on rays from (cx, cy) (`_face_edge_fit` in
 * vision/varanasi_colour_chain.py states the rules): per ray k of directions (cos, sin), the
 * samples at `steps` along it to whole pixels (half to even); a ray counts when both its ends lie
 * in the image and its first sample is on the face (label `colour`, or `no_colour` too when fewer
 * than `share` of the starts of either are of `colour`). On a counted ray the edge is at the
 * first sample whose radial gradient (|gx cos + gy sin|, float64) reaches `floor` there, moved
 * on while the gradient still grows; rays without one give no point. Fills `points` (x, y) and
 * gives their number, or -1 when fewer than `least` rays count. float64 throughout, in numpy's
 * order. */
static Py_ssize_t face_edge_points(const uint8_t *labels, const float *gx, const float *gy, const float *floor_,
                                   int64_t width, int64_t height, double cx, double cy, const double *cos_,
                                   const double *sin_, Py_ssize_t rays, const double *steps, Py_ssize_t count,
                                   int colour, int no_colour, double share, Py_ssize_t least, int64_t *flat,
                                   double *radial, double *points)
{
    int64_t on_colour = 0, on_either = 0;
    /* Per ray: 0 not counted, 1 starts on the face's colour, 2 starts on no colour; inside. */
    uint8_t *start = (uint8_t *)(radial + count), *inside = start + rays;
    for (Py_ssize_t k = 0; k < rays; k++) {
        double first_x = rint(cx + cos_[k] * steps[0]), first_y = rint(cy + sin_[k] * steps[0]);
        double last_x = rint(cx + cos_[k] * steps[count - 1]), last_y = rint(cy + sin_[k] * steps[count - 1]);
        inside[k] = first_x >= 0 && first_y >= 0 && first_x < (double)width && first_y < (double)height
                    && last_x >= 0 && last_y >= 0 && last_x < (double)width && last_y < (double)height;
        int64_t x = first_x < 0 ? 0 : (first_x > (double)(width - 1) ? width - 1 : (int64_t)first_x);
        int64_t y = first_y < 0 ? 0 : (first_y > (double)(height - 1) ? height - 1 : (int64_t)first_y);
        int label = labels[y * width + x];
        start[k] = label == colour ? 1 : (label == no_colour ? 2 : 0);
        on_colour += start[k] == 1;
        on_either += start[k] != 0;
    }
    int take_no_colour = (double)on_colour < share * (double)on_either;
    Py_ssize_t counted = 0;
    for (Py_ssize_t k = 0; k < rays; k++) {
        int on_face = start[k] == 1 || (take_no_colour && start[k] == 2);
        inside[k] = on_face && inside[k];
        counted += inside[k];
    }
    if (counted < least)
        return -1;
    Py_ssize_t found = 0;
    for (Py_ssize_t k = 0; k < rays; k++) {
        if (!inside[k])
            continue;
        Py_ssize_t first = -1;
        for (Py_ssize_t j = 0; j < count; j++) {
            double x = rint(cx + cos_[k] * steps[j]), y = rint(cy + sin_[k] * steps[j]);
            int64_t xi = x < 0 ? 0 : (x > (double)(width - 1) ? width - 1 : (int64_t)x);
            int64_t yi = y < 0 ? 0 : (y > (double)(height - 1) ? height - 1 : (int64_t)y);
            flat[j] = yi * width + xi;
            radial[j] = fabs((double)gx[flat[j]] * cos_[k] + (double)gy[flat[j]] * sin_[k]);
            if (first < 0 && radial[j] >= (double)floor_[flat[j]])
                first = j;
        }
        if (first < 0)
            continue;
        Py_ssize_t peak = first;
        while (peak < count - 1 && !(radial[peak + 1] < radial[peak]))
            peak++;
        points[2 * found] = cx + cos_[k] * steps[peak];
        points[2 * found + 1] = cy + sin_[k] * steps[peak];
        found++;
    }
    return found;
}

static PyObject *py_face_edge_points(PyObject *self, PyObject *args)
{
    Py_buffer labels = {0}, gx = {0}, gy = {0}, floor_ = {0}, cos_ = {0}, sin_ = {0}, steps = {0}, points = {0};
    Py_ssize_t width, height, least;
    double cx, cy, share;
    int colour, no_colour;
    if (!PyArg_ParseTuple(args, "y*y*y*y*nnddy*y*y*iidnw*", &labels, &gx, &gy, &floor_, &width, &height, &cx, &cy,
                          &cos_, &sin_, &steps, &colour, &no_colour, &share, &least, &points))
        return NULL;
    PyObject *result = NULL;
    void *work = NULL;
    Py_ssize_t pixels = width * height, rays = cos_.len / 8, count = steps.len / 8;
    if (width < 1 || height < 1 || rays < 1 || count < 1 || labels.len < pixels
        || gx.len < 4 * pixels || gy.len < 4 * pixels || floor_.len < 4 * pixels || sin_.len != cos_.len
        || points.len < 16 * rays || !PyBuffer_IsContiguous(&labels, 'C') || !PyBuffer_IsContiguous(&gx, 'C')
        || !PyBuffer_IsContiguous(&gy, 'C') || !PyBuffer_IsContiguous(&floor_, 'C')
        || !PyBuffer_IsContiguous(&points, 'C')) {
        PyErr_SetString(PyExc_ValueError, "face edge: labels, gradients and floor of the image's size, a point per ray");
        goto done;
    }
    work = malloc(count * (sizeof(int64_t) + sizeof(double)) + 2 * rays);
    if (!work) {
        PyErr_NoMemory();
        goto done;
    }
    Py_ssize_t found = face_edge_points(labels.buf, gx.buf, gy.buf, floor_.buf, width, height, cx, cy, cos_.buf,
                                        sin_.buf, rays, steps.buf, count, colour, no_colour, share, least, work,
                                        (double *)((int64_t *)work + count), points.buf);
    result = PyLong_FromSsize_t(found);
done:
    free(work);
    PyBuffer_Release(&labels);
    PyBuffer_Release(&gx);
    PyBuffer_Release(&gy);
    PyBuffer_Release(&floor_);
    PyBuffer_Release(&cos_);
    PyBuffer_Release(&sin_);
    PyBuffer_Release(&steps);
    PyBuffer_Release(&points);
    return result;
}

static PyMethodDef methods[] = {
    {"ring_counts", py_ring_counts, METH_VARARGS,
     "ring_counts(labels, width, height, cx, cy, limit, inner2, outer2, counts): fills counts (see "
     "vision/varanasi_pixels.py)."},
    {"ring_medians", py_ring_medians, METH_VARARGS,
     "ring_medians(lab, labels, width, height, other, cx, cy, limit, limit2, has_above, ax, ay, away2, share, "
     "least) -> (count, medians or None) (see vision/varanasi_disc_colours.py)."},
    {"face_edge_points", py_face_edge_points, METH_VARARGS,
     "face_edge_points(labels, gx, gy, floor, width, height, cx, cy, cos, sin, steps, colour, no_colour, share, "
     "least, points) -> the number of points found, or -1 (see vision/varanasi_colour_chain.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_rings",
                                    "Ring medians of Varanasi discs (see vision/varanasi_disc_colours.py).", -1,
                                    methods};

PyMODINIT_FUNC PyInit__varanasi_rings(void)
{
    return PyModule_Create(&module);
}
