/* Rim tests of many candidate circles: the innermost loop of Varanasi tower reading, in C.
 *
 * `score_rims` in vision/varanasi_rims.py states what it does and calls it, as
 * `_varanasi_rims.score_rims`; the arithmetic is done in the types and order of the plain numpy
 * form, so that it gives the same bits (tests/vision/varanasi/test_fast_rim_tests.py). Built with
 * -ffp-contract=off (setup.py): a multiply and an add fused into one instruction would round once
 * instead of twice.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 5
#define INNER_SIDE 0
#define ON_CIRCLE 2
#define OUTER_SIDE 4
#define MAX_DIRECTIONS 64

static uint64_t turned(uint64_t bits, int64_t step, int64_t directions)
{
    uint64_t all = directions == 64 ? ~(uint64_t)0 : (((uint64_t)1 << directions) - 1);
    return ((bits << step) | (bits >> (directions - step))) & all;
}

static int64_t bits_set(uint64_t bits)
{
    int64_t count = 0;
    while (bits) {
        bits &= bits - 1;
        count++;
    }
    return count;
}

/* A pixel's label, from labels of 1 (unsigned), 4 or 8 bytes (signed). */
static int64_t label_at(const void *labels, int64_t size, int64_t i)
{
    if (size == 1)
        return ((const uint8_t *)labels)[i];
    if (size == 4)
        return ((const int32_t *)labels)[i];
    return ((const int64_t *)labels)[i];
}

/* Sum of float32 values in numpy's order for a row of 8 to 128 (its `sum` along a contiguous
 * axis): eight running sums over blocks of eight, added pairwise, then any remainder. */
static float pairwise_sum(const float *values, int64_t n)
{
    float p0 = values[0], p1 = values[1], p2 = values[2], p3 = values[3];
    float p4 = values[4], p5 = values[5], p6 = values[6], p7 = values[7];
    int64_t whole = n - n % 8;
    for (int64_t start = 8; start < whole; start += 8) {
        p0 += values[start];
        p1 += values[start + 1];
        p2 += values[start + 2];
        p3 += values[start + 3];
        p4 += values[start + 4];
        p5 += values[start + 5];
        p6 += values[start + 6];
        p7 += values[start + 7];
    }
    float total = ((p0 + p1) + (p2 + p3)) + ((p4 + p5) + (p6 + p7));
    for (int64_t i = whole; i < n; i++)
        total += values[i];
    return total;
}

/* See `score_rims` in vision/varanasi_rims.py for the arguments. */
static void score_rims(
    const float *gx, const float *gy, int64_t width, int64_t height,
    const double *centres, const int64_t *counts, int64_t groups, const double *radii,
    const double *across, const double *cos64, const double *sin64, const float *cos32,
    const float *sin32, int64_t directions,
    const float *floor_, const uint16_t *lightness, const void *labels, int64_t label_size,
    const uint8_t *allowed, int64_t allowed_count,
    float valley_bar, const float *known_centres, const double *known_bounds2, int64_t known,
    int valley, int whole_circle, int64_t run_reach, int keep_counted,
    uint8_t *counted, double *coverage, double *sharpness, double *scattered)
{
    int64_t dx[MAX_DIRECTIONS][SAMPLES], dy[MAX_DIRECTIONS][SAMPLES];
    int64_t index[MAX_DIRECTIONS][SAMPLES], light[MAX_DIRECTIONS][SAMPLES];
    float step_x[MAX_DIRECTIONS], step_y[MAX_DIRECTIONS], on_circle[MAX_DIRECTIONS];
    int judged[MAX_DIRECTIONS], hits[MAX_DIRECTIONS];
    int64_t c = 0;
    for (int64_t group = 0; group < groups; group++) {
        double radius = radii[group];
        double quarters = rint(radius * 4.0);
        int64_t reach = 0;
        for (int64_t k = 0; k < directions; k++) {
            for (int s = 0; s < SAMPLES; s++) {
                double sampled = quarters / 4.0 + across[s];
                dx[k][s] = (int64_t)rint(sampled * cos64[k]);
                dy[k][s] = (int64_t)rint(sampled * sin64[k]);
                int64_t ax = dx[k][s] < 0 ? -dx[k][s] : dx[k][s];
                int64_t ay = dy[k][s] < 0 ? -dy[k][s] : dy[k][s];
                if (ax > reach) reach = ax;
                if (ay > reach) reach = ay;
            }
            step_x[k] = (float)radius * cos32[k];
            step_y[k] = (float)radius * sin32[k];
        }
        for (int64_t member = 0; member < counts[group]; member++, c++) {
            int64_t cx = (int64_t)rint(centres[2 * c]), cy = (int64_t)rint(centres[2 * c + 1]);
            if (reach <= cx && cx < width - reach && reach <= cy && cy < height - reach) {
                /* Every sample lies in the image: the usual case. */
                for (int64_t k = 0; k < directions; k++) {
                    for (int s = 0; s < SAMPLES; s++)
                        index[k][s] = (cy + dy[k][s]) * width + cx + dx[k][s];
                    judged[k] = 1;
                }
            } else {
                /* Samples outside are read at the nearest pixel in the image, their directions not judged. */
                for (int64_t k = 0; k < directions; k++) {
                    int shown = 1;
                    for (int s = 0; s < SAMPLES; s++) {
                        int64_t x = cx + dx[k][s], y = cy + dy[k][s];
                        if (x < 0 || x >= width || y < 0 || y >= height)
                            shown = 0;
                        int64_t yy = y < 0 ? 0 : (y > height - 1 ? height - 1 : y);
                        int64_t xx = x < 0 ? 0 : (x > width - 1 ? width - 1 : x);
                        index[k][s] = yy * width + xx;
                    }
                    judged[k] = shown;
                }
            }
            if (known) {
                for (int64_t k = 0; k < directions; k++) {
                    if (!judged[k])
                        continue;
                    float fx = (float)cx + step_x[k];
                    float fy = (float)cy + step_y[k];
                    for (int64_t j = 0; j < known; j++) {
                        float ax = fx - known_centres[2 * j];
                        float ay = fy - known_centres[2 * j + 1];
                        float distance2 = ax * ax + ay * ay;
                        if (!((double)distance2 > known_bounds2[2 * j]
                              || (double)distance2 < known_bounds2[2 * j + 1])) {
                            judged[k] = 0;
                            break;
                        }
                    }
                }
            }
            for (int64_t k = 0; k < directions; k++) {
                int64_t middle = index[k][ON_CIRCLE];
                float radial = fabsf(gx[middle] * cos32[k] + gy[middle] * sin32[k]);
                on_circle[k] = judged[k] ? radial : 0.0f;
            }
            if (valley) {
                for (int64_t k = 0; k < directions; k++)
                    for (int s = 0; s < SAMPLES; s++)
                        light[k][s] = lightness[index[k][s]];
                for (int64_t k = 0; k < directions; k++) {
                    hits[k] = 0;
                    if (!judged[k])
                        continue;
                    int64_t before = k ? k - 1 : directions - 1, after = k + 1 < directions ? k + 1 : 0;
                    int64_t inner = light[before][INNER_SIDE] + light[k][INNER_SIDE] + light[after][INNER_SIDE];
                    int64_t outer = light[before][OUTER_SIDE] + light[k][OUTER_SIDE] + light[after][OUTER_SIDE];
                    int64_t darkest = light[before][1] + light[k][1] + light[after][1];
                    for (int s = 2; s < 4; s++) {
                        int64_t sum = light[before][s] + light[k][s] + light[after][s];
                        if (sum < darkest) darkest = sum;
                    }
                    float sides = (float)(inner < outer ? inner : outer) / 3.0f - valley_bar;
                    int64_t label = label_at(labels, label_size, index[k][OUTER_SIDE]);
                    hits[k] = (float)darkest / 3.0f < sides && 0 <= label && label < allowed_count && allowed[label];
                }
            } else {
                for (int64_t k = 0; k < directions; k++) {
                    hits[k] = 0;
                    if (!judged[k])
                        continue;
                    for (int s = 1; s < 4; s++) {
                        int64_t sample = index[k][s];
                        if (fabsf(gx[sample] * cos32[k] + gy[sample] * sin32[k]) >= floor_[sample]) {
                            hits[k] = 1;
                            break;
                        }
                    }
                }
            }
            /* Runs around the circle, on the directions as bits of one number. */
            uint64_t hit_bits = 0, judged_bits = 0;
            for (int64_t k = 0; k < directions; k++) {
                if (hits[k]) hit_bits |= (uint64_t)1 << k;
                if (judged[k]) judged_bits |= (uint64_t)1 << k;
            }
            uint64_t middles = hit_bits;
            for (int64_t step = 1; step <= run_reach; step++)
                middles &= turned(hit_bits, step, directions) & turned(hit_bits, directions - step, directions);
            uint64_t near = middles;
            for (int64_t step = 1; step <= run_reach; step++)
                near |= turned(middles, step, directions) | turned(middles, directions - step, directions);
            if (keep_counted)
                for (int64_t k = 0; k < directions; k++)
                    counted[c * directions + k] = (near >> k) & 1;
            int64_t shown_count = bits_set(judged_bits);
            double denominator;
            if (whole_circle)
                denominator = (double)directions;
            else if ((double)shown_count >= (double)directions / 3.0)
                denominator = (double)shown_count;
            else
                denominator = INFINITY;
            coverage[c] = (double)bits_set(near) / denominator;
            sharpness[c] = (double)pairwise_sum(on_circle, directions) / denominator;
            scattered[c] = (double)bits_set(hit_bits) / denominator;
        }
    }
}

/* The Python call: numpy arrays come as buffers (C-contiguous, or numpy refuses them); their item
 * sizes and lengths are checked against what the kernel reads, so that no read or write leaves
 * them. */
static int sized(Py_buffer *buffer, Py_ssize_t itemsize, Py_ssize_t at_least, const char *name)
{
    if (buffer->itemsize != itemsize || buffer->len / itemsize < at_least) {
        PyErr_Format(PyExc_ValueError, "rim tests: %s must hold at least %zd items of %zd bytes", name, at_least,
                     itemsize);
        return 0;
    }
    return 1;
}

/* The checks of the buffers `score_rims` and `best_circles` share (b[0] to b[15], the frame, the
 * directions and the runs); 0 with the error set when one does not fit. */
static int shared_buffers_fit(Py_buffer *b, Py_ssize_t width, Py_ssize_t height, Py_ssize_t run_reach, int valley)
{
    Py_ssize_t pixels = width * height, groups = b[3].len / 8, directions = b[6].len / 8;
    Py_ssize_t count = b[2].len / 16, known = b[14].len / 8, label_size = b[12].itemsize;
    if (width < 1 || height < 1 || directions < 8 || directions > MAX_DIRECTIONS || run_reach < 0
        || 2 * run_reach >= directions) {
        PyErr_SetString(PyExc_ValueError, "rim tests: a frame, 8 to 64 directions, runs shorter than the circle");
        return 0;
    }
    if (!(sized(&b[0], 4, pixels, "gx") && sized(&b[1], 4, pixels, "gy") && sized(&b[2], 8, 2 * count, "centres")
          && sized(&b[3], 8, groups, "counts") && sized(&b[4], 8, groups, "radii")
          && sized(&b[5], 8, SAMPLES, "across") && sized(&b[6], 8, directions, "cos64")
          && sized(&b[7], 8, directions, "sin64") && sized(&b[8], 4, directions, "cos32")
          && sized(&b[9], 4, directions, "sin32") && sized(&b[14], 4, 2 * known, "known centres")
          && sized(&b[15], 8, 2 * known, "known bounds")))
        return 0;
    if (valley && label_size != 1 && label_size != 4 && label_size != 8) {
        PyErr_SetString(PyExc_ValueError, "rim tests: labels of 1, 4 or 8 bytes");
        return 0;
    }
    return valley ? sized(&b[11], 2, pixels, "lightness") && sized(&b[12], label_size, pixels, "labels")
                        && sized(&b[13], 1, 0, "allowed")
                  : sized(&b[10], 4, pixels, "floor");
}

static PyObject *py_score_rims(PyObject *self, PyObject *args)
{
    Py_buffer b[20];
    Py_ssize_t width, height, run_reach;
    float valley_bar;
    int valley, whole_circle, keep_counted;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*y*nny*y*y*y*y*y*y*y*y*y*y*y*fy*y*ppnpw*w*w*w*", &b[0], &b[1], &width,
                          &height,
                          &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13],
                          &valley_bar, &b[14], &b[15], &valley, &whole_circle, &run_reach, &keep_counted,
                          &b[16], &b[17], &b[18], &b[19]))
        return NULL;
    PyObject *result = NULL;
    Py_ssize_t groups = b[3].len / 8, directions = b[6].len / 8;
    Py_ssize_t count = b[2].len / 16, known = b[14].len / 8, label_size = b[12].itemsize;
    if (!(shared_buffers_fit(b, width, height, run_reach, valley)
          && sized(&b[17], 8, count, "coverage") && sized(&b[18], 8, count, "sharpness")
          && sized(&b[19], 8, count, "scattered")))
        goto done;
    if (keep_counted && !sized(&b[16], 1, count * directions, "counted"))
        goto done;
    int64_t total = 0;
    int negative = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        int64_t members = ((const int64_t *)b[3].buf)[g];
        negative |= members < 0;
        total += members;
    }
    if (negative || total != count) {
        PyErr_SetString(PyExc_ValueError, "rim tests: the groups' counts must add up to the centres given");
        goto done;
    }
    Py_BEGIN_ALLOW_THREADS
    score_rims(b[0].buf, b[1].buf, width, height, b[2].buf, b[3].buf, groups, b[4].buf, b[5].buf, b[6].buf, b[7].buf,
               b[8].buf, b[9].buf, directions, b[10].buf, b[11].buf, b[12].buf, label_size, b[13].buf, b[13].len,
               valley_bar, b[14].buf, b[15].buf, known, valley, whole_circle, run_reach, keep_counted,
               b[16].buf, b[17].buf, b[18].buf, b[19].buf);
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    for (int i = 0; i < 20; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

/* The index of the best of `count` circles: the highest coverage, the sharpest among equals, the
 * last among equals in both (the last of numpy's stable `lexsort` by sharpness, then coverage). */
static int64_t best_index(const double *coverage, const double *sharpness, int64_t count)
{
    int64_t best = 0;
    for (int64_t i = 1; i < count; i++)
        if (coverage[i] > coverage[best] || (coverage[i] == coverage[best] && sharpness[i] >= sharpness[best]))
            best = i;
    return best;
}

/* The best circle of each group of grid points, then of its best point's 8 neighbours where any
 * grid point showed a rim (`best_circles_and_grid_points` in vision/varanasi_circles.py, without
 * a search of every pixel): one call where the grids, the choices and the neighbours' tests took
 * some fifteen numpy calls a search. The same buffers as `score_rims` (no `whole_circle`, no
 * `counted`), then per group: the circle found (x, y), its coverage, the grid's best point. */
static PyObject *py_best_circles(PyObject *self, PyObject *args)
{
    Py_buffer b[19];
    Py_ssize_t width, height, run_reach;
    float valley_bar;
    int valley;
    memset(b, 0, sizeof b);
    if (!PyArg_ParseTuple(args, "y*y*nny*y*y*y*y*y*y*y*y*y*y*y*fy*y*pnw*w*w*", &b[0], &b[1], &width, &height,
                          &b[2], &b[3], &b[4], &b[5], &b[6], &b[7], &b[8], &b[9], &b[10], &b[11], &b[12], &b[13],
                          &valley_bar, &b[14], &b[15], &valley, &run_reach, &b[16], &b[17], &b[18]))
        return NULL;
    PyObject *result = NULL;
    double *scores = NULL;
    Py_ssize_t groups = b[3].len / 8, directions = b[6].len / 8;
    Py_ssize_t count = b[2].len / 16, known = b[14].len / 8, label_size = b[12].itemsize;
    if (!(shared_buffers_fit(b, width, height, run_reach, valley)
          && sized(&b[16], 8, 2 * groups, "found") && sized(&b[17], 8, groups, "found coverage")
          && sized(&b[18], 8, 2 * groups, "grid bests")))
        goto done;
    const int64_t *counts = b[3].buf;
    int64_t total = 0;
    int negative = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        negative |= counts[g] < 1;
        total += counts[g];
    }
    if (negative || total != count) {
        PyErr_SetString(PyExc_ValueError, "rim tests: groups of at least one centre, adding up to the centres given");
        goto done;
    }
    /* Scores of the grids (three per centre), then the neighbours' centres, radii, counts and
     * the group each set of neighbours refines. */
    Py_ssize_t tried = count > 9 * groups ? count : 9 * groups;
    scores = malloc(sizeof(double) * (3 * tried + 2 * 9 * groups + groups) + sizeof(int64_t) * 2 * groups);
    if (!scores) {
        PyErr_NoMemory();
        goto done;
    }
    double *coverage = scores, *sharpness = scores + tried, *scattered = scores + 2 * tried;
    double *around = scores + 3 * tried, *around_radii = around + 2 * 9 * groups;
    int64_t *around_counts = (int64_t *)(around_radii + groups), *refines = around_counts + groups;
    const double *centres = b[2].buf, *radii = b[4].buf;
    double *found = b[16].buf, *found_coverage = b[17].buf, *grid_bests = b[18].buf;
    Py_BEGIN_ALLOW_THREADS
    score_rims(b[0].buf, b[1].buf, width, height, centres, counts, groups, radii, b[5].buf, b[6].buf, b[7].buf,
               b[8].buf, b[9].buf, directions, b[10].buf, b[11].buf, b[12].buf, label_size, b[13].buf, b[13].len,
               valley_bar, b[14].buf, b[15].buf, known, valley, 0, run_reach, 0, NULL, coverage, sharpness,
               scattered);
    int64_t shown = 0, start = 0;
    for (Py_ssize_t g = 0; g < groups; g++) {
        int64_t best = start + best_index(coverage + start, sharpness + start, counts[g]);
        grid_bests[2 * g] = found[2 * g] = centres[2 * best];
        grid_bests[2 * g + 1] = found[2 * g + 1] = centres[2 * best + 1];
        found_coverage[g] = 0.0;
        if (coverage[best] > 0.0) {
            /* The best point and its 8 neighbours, x major, as `_NEIGHBOURS` lists them. */
            for (int k = 0; k < 9; k++) {
                around[2 * (9 * shown + k)] = (double)(k / 3 - 1) + centres[2 * best];
                around[2 * (9 * shown + k) + 1] = (double)(k % 3 - 1) + centres[2 * best + 1];
            }
            around_radii[shown] = radii[g];
            around_counts[shown] = 9;
            refines[shown++] = g;
        }
        start += counts[g];
    }
    if (shown)
        score_rims(b[0].buf, b[1].buf, width, height, around, around_counts, shown, around_radii, b[5].buf, b[6].buf,
                   b[7].buf, b[8].buf, b[9].buf, directions, b[10].buf, b[11].buf, b[12].buf, label_size, b[13].buf,
                   b[13].len, valley_bar, b[14].buf, b[15].buf, known, valley, 0, run_reach, 0, NULL, coverage,
                   sharpness, scattered);
    for (int64_t r = 0; r < shown; r++) {
        int64_t best = 9 * r + best_index(coverage + 9 * r, sharpness + 9 * r, 9), g = refines[r];
        found[2 * g] = around[2 * best];
        found[2 * g + 1] = around[2 * best + 1];
        found_coverage[g] = coverage[best];
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
done:
    free(scores);
    for (int i = 0; i < 19; i++)
        if (b[i].obj)
            PyBuffer_Release(&b[i]);
    return result;
}

static PyMethodDef methods[] = {
    {"score_rims", py_score_rims, METH_VARARGS,
     "score_rims(gx, gy, width, height, centres, counts, radii, across, cos64, sin64, cos32, sin32, floor, lightness, "
     "labels, allowed, valley_bar, known_centres, known_bounds2, valley, whole_circle, run_reach, keep_counted, "
     "counted, coverage, sharpness, scattered): fills the last four (see vision/varanasi_rims.py)."},
    {"best_circles", py_best_circles, METH_VARARGS,
     "best_circles(gx, gy, width, height, centres, counts, radii, across, cos64, sin64, cos32, sin32, floor, "
     "lightness, labels, allowed, valley_bar, known_centres, known_bounds2, valley, run_reach, found, "
     "found_coverage, grid_bests): fills the last three (see vision/varanasi_rims.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_rims",
                                    "The Varanasi rim tests' kernel (see vision/varanasi_rims.py).", -1, methods};

PyMODINIT_FUNC PyInit__varanasi_rims(void)
{
    return PyModule_Create(&module);
}
