/* Centre votes of one radius plane, counted in one pass over the frame's strong edge pixels.
 *
 * `smoothed_vote_planes` in vision/varanasi_votes.py states what is counted and calls it, as
 * `_varanasi_votes.count_votes`. The steps are numpy's float32 operations in the same order (built
 * with -ffp-contract=off, setup.py), rounded to whole pixels half to even as `np.rint` does, and
 * counted as OpenCV's `calcHist` counts them (float32 counts, exact; points outside the frame
 * left out), so the plane is the plain form's (tests/vision/varanasi/test_fast_paths.py). One
 * pass replaces a dozen numpy calls on the tens of thousands of strong pixels and a histogram, a
 * plane.
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

static PyMethodDef methods[] = {
    {"count_votes", py_count_votes, METH_VARARGS,
     "count_votes(ux, uy, strong, radii, planes, plane, width, height, votes): fills votes "
     "(see vision/varanasi_votes.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_votes",
                                    "Centre votes of Varanasi discs (see vision/varanasi_votes.py).", -1, methods};

PyMODINIT_FUNC PyInit__varanasi_votes(void)
{
    return PyModule_Create(&module);
}
