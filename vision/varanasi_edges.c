/* Colour edges of a Lab image in one pass: the gradient of the strongest channel at each pixel.
 *
 * `edge_planes` in vision/varanasi_geometry.py states what it gives and calls it, as
 * `_varanasi_edges.edge_planes`. It gives the bits of OpenCV's steps (3x3 Sobels of each 8-bit
 * plane to float32 with the default border, reflected about the edge pixel; their magnitudes; each
 * channel's gradient kept where its magnitude is strictly greater than the ones before it): a
 * 3x3 Sobel of bytes is a whole number under 1021 in size, so its square sum is exact in float32
 * and the square root is rounded once, as OpenCV's is (tests/vision/varanasi/test_fast_paths.py).
 * One pass over the bytes replaces some twenty OpenCV calls (split, six Sobels, three magnitudes,
 * compares, masked copies and maxima), whose fixed costs and memory traffic dominated on a tower's
 * crop.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define CHANNELS 3

/* The row or column index `i` of an image `n` long, reflected about its end pixels (OpenCV's
 * BORDER_REFLECT_101): -1 is 1 and n is n - 2. */
static int64_t reflected(int64_t i, int64_t n)
{
    if (n == 1)
        return 0;
    if (i < 0)
        return -i;
    if (i >= n)
        return 2 * n - 2 - i;
    return i;
}

/* One channel's Sobels along a row, from the channel's bytes on the rows above, at and below
 * (`up`, `mid`, `down`, widened to int16, which the loop vectorises on, each padded by one
 * reflected pixel either end: index 0 is column -1). */
static void channel_row(const int16_t *up, const int16_t *mid, const int16_t *down, int64_t width,
                        float *gx, float *gy, float *magnitude)
{
    for (int64_t x = 0; x < width; x++) {
        int32_t left = up[x] + 2 * mid[x] + down[x];
        int32_t right = up[x + 2] + 2 * mid[x + 2] + down[x + 2];
        int32_t top = up[x] + 2 * up[x + 1] + up[x + 2];
        int32_t bottom = down[x] + 2 * down[x + 1] + down[x + 2];
        int32_t sx = right - left, sy = bottom - top;
        gx[x] = (float)sx;
        gy[x] = (float)sy;
        magnitude[x] = sqrtf((float)(sx * sx + sy * sy));
    }
}

/* See `edge_planes` in vision/varanasi_geometry.py. `planes` holds each channel's rows as int16,
 * padded with the reflected pixel at either end (CHANNELS * height rows of width + 2); `scratch`
 * three rows of float32. */
static void edge_planes(const uint8_t *lab, int64_t width, int64_t height, float *best_gx, float *best_gy,
                        float *best_magnitude, int16_t *planes, float *scratch)
{
    int64_t padded = width + 2, left = reflected(-1, width), right = reflected(width, width);
    for (int64_t y = 0; y < height; y++) {
        const uint8_t *line = lab + y * width * CHANNELS;
        int16_t *rows[CHANNELS];
        for (int c = 0; c < CHANNELS; c++)
            rows[c] = planes + (c * height + y) * padded;
        for (int64_t x = 0; x < width; x++)
            for (int c = 0; c < CHANNELS; c++)
                rows[c][x + 1] = line[x * CHANNELS + c];
        for (int c = 0; c < CHANNELS; c++) {
            rows[c][0] = line[left * CHANNELS + c];
            rows[c][width + 1] = line[right * CHANNELS + c];
        }
    }
    float *cx = scratch, *cy = scratch + width, *strength = scratch + 2 * width;
    for (int64_t y = 0; y < height; y++) {
        int64_t above = reflected(y - 1, height), below = reflected(y + 1, height);
        float *gx = best_gx + y * width, *gy = best_gy + y * width, *magnitude = best_magnitude + y * width;
        channel_row(planes + above * padded, planes + y * padded, planes + below * padded, width, gx, gy, magnitude);
        for (int c = 1; c < CHANNELS; c++) {
            const int16_t *plane = planes + c * height * padded;
            channel_row(plane + above * padded, plane + y * padded, plane + below * padded, width, cx, cy, strength);
            for (int64_t x = 0; x < width; x++) {
                int stronger = strength[x] > magnitude[x];
                gx[x] = stronger ? cx[x] : gx[x];
                gy[x] = stronger ? cy[x] : gy[x];
                magnitude[x] = stronger ? strength[x] : magnitude[x];
            }
        }
    }
}

static int sized(Py_buffer *buffer, Py_ssize_t itemsize, Py_ssize_t at_least, const char *name)
{
    if (buffer->itemsize != itemsize || buffer->len / itemsize < at_least || !PyBuffer_IsContiguous(buffer, 'C')) {
        PyErr_Format(PyExc_ValueError, "edge planes: %s must be contiguous and hold %zd items of %zd bytes", name,
                     at_least, itemsize);
        return 0;
    }
    return 1;
}

static PyObject *py_edge_planes(PyObject *self, PyObject *args)
{
    Py_buffer b[4];
    Py_ssize_t width, height;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*nnw*w*w*", &b[0], &width, &height, &b[1], &b[2], &b[3]))
        return NULL;
    PyObject *result = NULL;
    int16_t *planes = NULL;
    float *scratch = NULL;
    if (width < 1 || height < 1) {
        PyErr_SetString(PyExc_ValueError, "edge planes: an image of at least one pixel");
        goto done;
    }
    Py_ssize_t pixels = width * height;
    if (!(sized(&b[0], 1, pixels * CHANNELS, "lab") && sized(&b[1], 4, pixels, "gx")
          && sized(&b[2], 4, pixels, "gy") && sized(&b[3], 4, pixels, "magnitude")))
        goto done;
    planes = malloc(sizeof(int16_t) * CHANNELS * height * (width + 2));
    scratch = malloc(sizeof(float) * 3 * width);
    if (planes == NULL || scratch == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    edge_planes(b[0].buf, width, height, b[1].buf, b[2].buf, b[3].buf, planes, scratch);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    free(planes);
    free(scratch);
    for (int i = 0; i < 4; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"edge_planes", py_edge_planes, METH_VARARGS,
     "edge_planes(lab, width, height, gx, gy, magnitude): fills the last three (see vision/varanasi_geometry.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_edges",
                                    "Colour edges of a Lab image (see vision/varanasi_geometry.py).", -1, methods};

PyMODINIT_FUNC PyInit__varanasi_edges(void)
{
    return PyModule_Create(&module);
}
