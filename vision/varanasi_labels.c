/* Pixel labels of a Varanasi crop in one pass: each smoothed Lab pixel's squared Mahalanobis
 * distance to every disc colour and to the board (float32 Lab in), the most likely label, and "other" where every
 * distance is beyond the label bar.
 *
 * `pixel_labels` in vision/varanasi_pixels.py states what it gives and calls it, as
 * `_varanasi_labels.pixel_labels`. The numpy form takes the whitened colours as matrix products,
 * whose bits are the BLAS library's: OpenBLAS's kernels sum the three products of a row and a
 * column as a chain of fused multiply-adds, first index first (the first product rounded on its
 * own). This pass sums them the same way, by explicit `fmaf` calls (the rest is built with
 * -ffp-contract=off, setup.py, so nothing else is fused), and the rest of the arithmetic in
 * numpy's types and order: float32 distances, float64 scores (log norm - half the distance).
 * tests/vision/varanasi/test_pixel_labels.py checks it against the numpy form. One pass replaces
 * some thirty numpy calls a crop, whose fixed costs were most of the time on crops this small.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#define CHANNELS 3
#define MAX_LABELS 32
#define BLOCK 256 /* pixels worked on together, every plane in the first level cache */

/* Distances of `count` pixels (planes x0, x1, x2) under one whitening: a (3, 3) block whose
 * column j is read at whitening[c * stride + j] (c the channel), centres subtracted after the
 * product (colours) or `mean` before it (the board). The numpy form sums the board's squares by
 * a product with ones: over several pixels in float32, first to last; for a single pixel
 * OpenBLAS's dot product, which sums in double (`sum_in_double`). */
static void distances(const float *x0, const float *x1, const float *x2, Py_ssize_t count,
                      const float *whitening, Py_ssize_t stride, const float *centre, const float *mean,
                      int sum_in_double, float *out)
{
    float w[CHANNELS][CHANNELS], c[CHANNELS], m[CHANNELS];
    for (int channel = 0; channel < CHANNELS; channel++) {
        for (int j = 0; j < CHANNELS; j++)
            w[channel][j] = whitening[channel * stride + j];
        c[channel] = centre ? centre[channel] : 0.0f;
        m[channel] = mean ? mean[channel] : 0.0f;
    }
    /* Two loops, so that the usual one has no branch and vectorises. */
    if (sum_in_double) {
        for (Py_ssize_t p = 0; p < count; p++) {
            float squares[CHANNELS];
            for (int j = 0; j < CHANNELS; j++) {
                float whitened = fmaf(w[2][j], x2[p] - m[2], fmaf(w[1][j], x1[p] - m[1], w[0][j] * (x0[p] - m[0])));
                whitened -= c[j];
                squares[j] = whitened * whitened;
            }
            out[p] = (float)(((double)squares[0] + (double)squares[1]) + (double)squares[2]);
        }
        return;
    }
    for (Py_ssize_t p = 0; p < count; p++) {
        float a = x0[p] - m[0], b = x1[p] - m[1], d = x2[p] - m[2];
        float squares[CHANNELS];
        for (int j = 0; j < CHANNELS; j++) {
            float whitened = fmaf(w[2][j], d, fmaf(w[1][j], b, w[0][j] * a));
            whitened -= c[j];
            squares[j] = whitened * whitened;
        }
        out[p] = (squares[0] + squares[1]) + squares[2];
    }
}

static PyObject *py_pixel_labels(PyObject *self, PyObject *args)
{
    Py_buffer smooth = {0}, colour_whitening = {0}, colour_centres = {0}, log_norms = {0}, board_mean = {0},
              board_whitening = {0}, labels = {0};
    Py_ssize_t count, colours;
    double board_log_norm;
    float bar;
    if (!PyArg_ParseTuple(args, "y*ny*y*y*y*y*dfw*", &smooth, &count, &colour_whitening, &colour_centres, &log_norms,
                          &board_mean, &board_whitening, &board_log_norm, &bar, &labels))
        return NULL;
    PyObject *result = NULL;
    colours = log_norms.len / (Py_ssize_t)sizeof(double);
    if (count < 0 || colours < 1 || colours + 2 > MAX_LABELS
        || smooth.len != (Py_ssize_t)sizeof(float) * CHANNELS * count || labels.len < count
        || colour_whitening.len != (Py_ssize_t)sizeof(float) * CHANNELS * CHANNELS * colours
        || colour_centres.len != (Py_ssize_t)sizeof(float) * CHANNELS * colours
        || board_mean.len != (Py_ssize_t)sizeof(float) * CHANNELS
        || board_whitening.len != (Py_ssize_t)sizeof(float) * CHANNELS * CHANNELS
        || !PyBuffer_IsContiguous(&smooth, 'C') || !PyBuffer_IsContiguous(&colour_whitening, 'C')
        || !PyBuffer_IsContiguous(&colour_centres, 'C') || !PyBuffer_IsContiguous(&log_norms, 'C')
        || !PyBuffer_IsContiguous(&board_mean, 'C') || !PyBuffer_IsContiguous(&board_whitening, 'C')
        || !PyBuffer_IsContiguous(&labels, 'C')) {
        PyErr_SetString(PyExc_ValueError, "pixel_labels: bad array sizes or layout");
        goto done;
    }
    const float *pixels = smooth.buf;
    const float *whitening = colour_whitening.buf, *centres = colour_centres.buf;
    const double *norms = log_norms.buf;
    uint8_t *out = labels.buf;
    Py_ssize_t stride = CHANNELS * colours;
    float x0[BLOCK], x1[BLOCK], x2[BLOCK], distance[BLOCK], least[BLOCK];
    double best[BLOCK];
    for (Py_ssize_t start = 0; start < count; start += BLOCK) {
        Py_ssize_t n = count - start < BLOCK ? count - start : BLOCK;
        const float *block = pixels + start * CHANNELS;
        uint8_t *chosen = out + start;
        for (Py_ssize_t p = 0; p < n; p++) {
            x0[p] = block[CHANNELS * p];
            x1[p] = block[CHANNELS * p + 1];
            x2[p] = block[CHANNELS * p + 2];
        }
        /* Label by label, as the numpy form: a later label only where strictly more likely. */
        for (Py_ssize_t label = 0; label <= colours; label++) {
            double norm = label < colours ? norms[label] : board_log_norm;
            if (label < colours)
                distances(x0, x1, x2, n, whitening + CHANNELS * label, stride, centres + CHANNELS * label, NULL, 0,
                          distance);
            else
                distances(x0, x1, x2, n, board_whitening.buf, CHANNELS, NULL, board_mean.buf, count == 1, distance);
            if (label == 0) {
                for (Py_ssize_t p = 0; p < n; p++) {
                    best[p] = norm - (double)(0.5f * distance[p]);
                    least[p] = distance[p];
                    chosen[p] = 0;
                }
                continue;
            }
            for (Py_ssize_t p = 0; p < n; p++) {
                double score = norm - (double)(0.5f * distance[p]);
                if (score > best[p])
                    chosen[p] = (uint8_t)label;
                best[p] = score > best[p] ? score : best[p];
                least[p] = distance[p] < least[p] ? distance[p] : least[p];
            }
        }
        for (Py_ssize_t p = 0; p < n; p++)
            if (least[p] > bar)
                chosen[p] = (uint8_t)(colours + 1);
    }
    result = Py_NewRef(Py_None);
done:
    PyBuffer_Release(&smooth);
    PyBuffer_Release(&colour_whitening);
    PyBuffer_Release(&colour_centres);
    PyBuffer_Release(&log_norms);
    PyBuffer_Release(&board_mean);
    PyBuffer_Release(&board_whitening);
    PyBuffer_Release(&labels);
    return result;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* numpy's default quantile (linear between the two nearest ranks) of `count` sorted values, in
 * the arithmetic of `linear_quantiles` (vision/varanasi_colour.py). */
static double quantile(const double *sorted, Py_ssize_t count, double q)
{
    double position = (double)(count - 1) * q;
    double previous = floor(position);
    Py_ssize_t lower = (Py_ssize_t)previous < count - 1 ? (Py_ssize_t)previous : count - 1;
    Py_ssize_t upper = lower + 1 < count - 1 ? lower + 1 : count - 1;
    double gamma = position - previous, a = sorted[lower], b = sorted[upper], difference = b - a;
    return gamma >= 0.5 ? b - difference * (1 - gamma) : a + difference * gamma;
}

/* The pixels of a crop's border (the first and last `border` rows, then the first and last
 * `border` columns, each in row order, as `_local_board` in vision/varanasi_pixels.py takes
 * them) within the label bar of the board, as float64, their lightest and darkest `trim` cut
 * off as `trimmed_pixels` (vision/varanasi_colour.py) cuts them. Gives (border pixels,
 * board-like pixels, pixels kept) and fills `kept` with the pixels kept. */
static PyObject *py_local_board_pixels(PyObject *self, PyObject *args)
{
    Py_buffer smooth = {0}, board_mean = {0}, board_whitening = {0}, kept = {0};
    Py_ssize_t width, height, border;
    float bar;
    double trim;
    if (!PyArg_ParseTuple(args, "y*nnny*y*fdw*", &smooth, &width, &height, &border, &board_mean, &board_whitening,
                          &bar, &trim, &kept))
        return NULL;
    PyObject *result = NULL;
    double *lightness = NULL;
    Py_ssize_t rows = border < height ? border : height, columns = border < width ? border : width;
    Py_ssize_t total = 2 * (rows * width + columns * height);
    if (width < 1 || height < 1 || border < 1 || smooth.len != (Py_ssize_t)sizeof(float) * CHANNELS * width * height
        || board_mean.len != (Py_ssize_t)sizeof(float) * CHANNELS
        || board_whitening.len != (Py_ssize_t)sizeof(float) * CHANNELS * CHANNELS
        || kept.len < (Py_ssize_t)sizeof(double) * CHANNELS * total || !PyBuffer_IsContiguous(&smooth, 'C')
        || !PyBuffer_IsContiguous(&board_mean, 'C') || !PyBuffer_IsContiguous(&board_whitening, 'C')
        || !PyBuffer_IsContiguous(&kept, 'C')) {
        PyErr_SetString(PyExc_ValueError, "local board: bad array sizes or layout");
        goto done;
    }
    lightness = malloc(sizeof(double) * (total > 0 ? total : 1));
    if (!lightness) {
        PyErr_NoMemory();
        goto done;
    }
    const float *pixels = smooth.buf;
    double *out = kept.buf;
    /* The border's strips: (first row, rows, first column, columns). */
    Py_ssize_t strips[4][4] = {{0, rows, 0, width}, {height - rows, rows, 0, width},
                               {0, height, 0, columns}, {0, height, width - columns, columns}};
    Py_ssize_t like = 0;
    for (int strip = 0; strip < 4; strip++) {
        for (Py_ssize_t y = strips[strip][0]; y < strips[strip][0] + strips[strip][1]; y++) {
            for (Py_ssize_t x = strips[strip][2]; x < strips[strip][2] + strips[strip][3]; x++) {
                const float *pixel = pixels + (y * width + x) * CHANNELS;
                float x0 = pixel[0], x1 = pixel[1], x2 = pixel[2], distance;
                distances(&x0, &x1, &x2, 1, board_whitening.buf, CHANNELS, NULL, board_mean.buf, 0, &distance);
                if (!(distance <= bar))
                    continue;
                for (int c = 0; c < CHANNELS; c++)
                    out[CHANNELS * like + c] = (double)pixel[c];
                lightness[like] = (double)pixel[0];
                like++;
            }
        }
    }
    Py_ssize_t count = like;
    if (like >= 8) {
        qsort(lightness, like, sizeof(double), compare_doubles);
        double low = quantile(lightness, like, trim), high = quantile(lightness, like, 1.0 - trim);
        Py_ssize_t inside = 0;
        for (Py_ssize_t i = 0; i < like; i++)
            inside += out[CHANNELS * i] >= low && out[CHANNELS * i] <= high;
        if (inside >= 4) {
            count = 0;
            for (Py_ssize_t i = 0; i < like; i++) {
                if (!(out[CHANNELS * i] >= low && out[CHANNELS * i] <= high))
                    continue;
                for (int c = 0; c < CHANNELS; c++)
                    out[CHANNELS * count + c] = out[CHANNELS * i + c];
                count++;
            }
        }
    }
    result = Py_BuildValue("(nnn)", total, like, count);
done:
    free(lightness);
    PyBuffer_Release(&smooth);
    PyBuffer_Release(&board_mean);
    PyBuffer_Release(&board_whitening);
    PyBuffer_Release(&kept);
    return result;
}

static PyMethodDef methods[] = {
    {"pixel_labels", py_pixel_labels, METH_VARARGS,
     "pixel_labels(smooth, count, colour_whitening, colour_centres, log_norms, board_mean, board_whitening, "
     "board_log_norm, bar, labels): fills labels (see vision/varanasi_pixels.py)."},
    {"local_board_pixels", py_local_board_pixels, METH_VARARGS,
     "local_board_pixels(smooth, width, height, border, board_mean, board_whitening, bar, trim, kept) -> "
     "(border pixels, board-like pixels, pixels kept); fills kept (see vision/varanasi_pixels.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_labels",
                                    "Pixel labels of Varanasi crops (see vision/varanasi_pixels.py).", -1, methods};

PyMODINIT_FUNC PyInit__varanasi_labels(void)
{
    return PyModule_Create(&module);
}
