/* Centre votes of one radius plane, counted in one pass over the frame's strong edge pixels.
 *
 * `smoothed_vote_planes` in vision/varanasi_votes.py states what is counted and calls it, as
 * `_varanasi_votes.count_votes`. The steps are numpy's float32 operations in the same order (built
 * with -ffp-contract=off, setup.py), rounded to whole pixels half to even as `np.rint` does, and
 * counted as OpenCV's `calcHist` counts them (float32 counts, exact; points outside the frame
 * left out), so the plane is the plain form's (tests/vision/varanasi/test_fast_paths.py). One
 * pass replaces a dozen numpy calls on the tens of thousands of strong pixels and a histogram, a
 * plane. A smoothed plane's peaks are found in one pass too (`plane_peaks`, called by
 * `centre_vote_peaks`): votes are float32 divisions in numpy's order, compared with the bar and
 * the 5x5 neighbourhood as the plain form compares them (tests/vision/varanasi/test_fast_paths.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

/* One vote at (x, y), whole numbers as floats, when it lies in the frame. */
static void vote(float *votes, int64_t width, int64_t height, float x, float y)
{
    if (x >= 0.0f && x < (float)width && y >= 0.0f && y < (float)height)
        votes[(int64_t)y * width + (int64_t)x] += 1.0f;
}

static void count_votes(const float *ux, const float *uy, const int64_t *strong, int64_t count, const float *radii,
                        int64_t planes, int64_t plane, int64_t width, int64_t height, float *votes)
{
    memset(votes, 0, sizeof(float) * width * height);
    for (int64_t i = 0; i < count; i++) {
        int64_t pixel = strong[i];
        float r = radii[pixel * planes + plane];
        float step_x = r * ux[i], step_y = r * uy[i];
        int64_t row = pixel / width;
        float x = (float)(pixel - row * width), y = (float)row;
        /* Along the gradient both ways (a disc may be lighter or darker than around it). */
        vote(votes, width, height, rintf(x + step_x), rintf(y + step_y));
        vote(votes, width, height, rintf(x - step_x), rintf(y - step_y));
    }
}

static int sized(Py_buffer *buffer, Py_ssize_t itemsize, Py_ssize_t at_least, const char *name)
{
    if (buffer->itemsize != itemsize || buffer->len / itemsize < at_least || !PyBuffer_IsContiguous(buffer, 'C')) {
        PyErr_Format(PyExc_ValueError, "vote counts: %s must be contiguous and hold %zd items of %zd bytes", name,
                     at_least, itemsize);
        return 0;
    }
    return 1;
}

static PyObject *py_count_votes(PyObject *self, PyObject *args)
{
    Py_buffer b[5];
    Py_ssize_t width, height, planes, plane;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*y*y*y*nnnnw*", &b[0], &b[1], &b[2], &b[3], &planes, &plane, &width, &height,
                          &b[4]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pixels = width * height, count = b[2].len / 8;
    if (width < 1 || height < 1 || planes < 1 || plane < 0 || plane >= planes) {
        PyErr_SetString(PyExc_ValueError, "vote counts: a frame, and a plane among the radius maps");
        goto done;
    }
    if (!(sized(&b[0], 4, count, "ux") && sized(&b[1], 4, count, "uy") && sized(&b[2], 8, count, "strong pixels")
          && sized(&b[3], 4, pixels * planes, "radii") && sized(&b[4], 4, pixels, "votes")))
        goto done;
    const int64_t *strong = b[2].buf;
    for (Py_ssize_t i = 0; i < count; i++) {
        if (strong[i] < 0 || strong[i] >= pixels) {
            PyErr_SetString(PyExc_ValueError, "vote counts: a strong pixel outside the frame");
            goto done;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    count_votes(b[0].buf, b[1].buf, strong, count, b[3].buf, planes, plane, width, height, b[4].buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < 5; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

/* A plane's votes at (x, y): its smoothed count over the radius there, over the weight (float32,
 * in numpy's order). */
static float votes_at(const float *counts, const float *radii, int64_t planes, int64_t plane, int64_t width,
                      int64_t x, int64_t y, float weight)
{
    int64_t pixel = y * width + x;
    return counts[pixel] / radii[pixel * planes + plane] / weight;
}

/* The vote peaks of one smoothed plane (`centre_vote_peaks` in vision/varanasi_votes.py states
 * the rule): the pixels whose count passes `least` (a bound below the bar at the plane's smallest
 * radius) and whose votes pass `bar` and are not below those of any pixel of their 5x5
 * neighbourhood clipped to the frame, in row order, as (votes, x, y, radius) of Python numbers. */
static PyObject *py_plane_peaks(PyObject *self, PyObject *args)
{
    Py_buffer counts = {0}, radii = {0};
    Py_ssize_t width, height, planes, plane;
    float least, bar, weight;
    if (!PyArg_ParseTuple(args, "y*nny*nnfff", &counts, &width, &height, &radii, &planes, &plane, &least, &bar,
                          &weight))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t pixels = width * height;
    if (width < 1 || height < 1 || planes < 1 || plane < 0 || plane >= planes
        || !sized(&counts, 4, pixels, "counts") || !sized(&radii, 4, pixels * planes, "radii"))
        goto done;
    result = PyList_New(0);
    if (!result)
        goto done;
    const float *count = counts.buf, *radius = radii.buf;
    /* The 8 nearest pixels first, then the 16 around them: most candidates (a peak's slopes) fail
     * on a nearest one. */
    static const int offsets[24][2] = {{-1, -1}, {-1, 0}, {-1, 1}, {0, -1}, {0, 1}, {1, -1}, {1, 0}, {1, 1},
                                       {-2, -2}, {-2, -1}, {-2, 0}, {-2, 1}, {-2, 2}, {-1, -2}, {-1, 2}, {0, -2},
                                       {0, 2}, {1, -2}, {1, 2}, {2, -2}, {2, -1}, {2, 0}, {2, 1}, {2, 2}};
    for (int64_t y = 0; y < height; y++) {
        const float *row = count + y * width;
        for (int64_t start = 0; start < width; start += 8) {
            int64_t end = start + 8 < width ? start + 8 : width;
            /* Eight pixels at a time under the bound, the usual case, in one comparison. */
            float most = row[start];
            for (int64_t x = start + 1; x < end; x++)
                most = row[x] > most ? row[x] : most;
            if (!(most > least))
                continue;
            for (int64_t x = start; x < end; x++) {
                if (!(row[x] > least))
                    continue;
                float votes = votes_at(count, radius, planes, plane, width, x, y, weight);
                if (!(votes > bar))
                    continue;
                int peak = 1;
                for (int k = 0; k < 24; k++) {
                    int64_t ny = y + offsets[k][0], nx = x + offsets[k][1];
                    ny = ny < 0 ? 0 : (ny > height - 1 ? height - 1 : ny);
                    nx = nx < 0 ? 0 : (nx > width - 1 ? width - 1 : nx);
                    if (!(votes >= votes_at(count, radius, planes, plane, width, nx, ny, weight))) {
                        peak = 0;
                        break;
                    }
                }
                if (!peak)
                    continue;
                PyObject *item = Py_BuildValue("(dnnd)", (double)votes, (Py_ssize_t)x, (Py_ssize_t)y,
                                               (double)radius[(y * width + x) * planes + plane]);
                if (!item || PyList_Append(result, item) < 0) {
                    Py_XDECREF(item);
                    Py_CLEAR(result);
                    goto done;
                }
                Py_DECREF(item);
            }
        }
    }
done:
    PyBuffer_Release(&counts);
    PyBuffer_Release(&radii);
    return result;
}

static PyMethodDef methods[] = {
    {"count_votes", py_count_votes, METH_VARARGS,
     "count_votes(ux, uy, strong, radii, planes, plane, width, height, votes): fills votes "
     "(see vision/varanasi_votes.py)."},
    {"plane_peaks", py_plane_peaks, METH_VARARGS,
     "plane_peaks(counts, width, height, radii, planes, plane, least, bar, weight) -> [(votes, x, y, radius)] "
     "(see vision/varanasi_votes.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_votes",
                                    "Centre votes of Varanasi discs (see vision/varanasi_votes.py).", -1, methods};

PyMODINIT_FUNC PyInit__varanasi_votes(void)
{
    return PyModule_Create(&module);
}
