/* The gain of a Varanasi candidate's best matching of its stacks to the towers seen, in one pass:
 * the Hungarian method of `assign_rows` (vision/varanasi_assignment.py) on the negated gains, and
 * the sum of the matched pairs' gains (those above zero), as `VaranasiObservation._log_likelihood`
 * (vision/varanasi_observation.py) adds them.
 *
 * The judge weighs some hundred candidates for a picture, one assignment each, where the Python
 * steps cost far more than the arithmetic on matrices this small. The steps are the Python form's
 * in the same order on doubles (built with -ffp-contract=off, setup.py): the same pairs, ties
 * included, and the same sum to the last bit (tests/vision/varanasi/test_likelihood_speed.py).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <math.h>
#include <stdlib.h>

/* Pairs of least total cost of the `rows` x `cols` matrix `cost(r, c)` (rows <= cols), as
 * `assign_rows` finds them: on return row_of_col[c] (c from 1) is the row (from 1) of column c,
 * or 0. The work lists are the caller's, each cols + 1 long (u: rows + 1). */
static void hungarian(const double *gains, Py_ssize_t seen, int transposed, Py_ssize_t rows, Py_ssize_t cols,
                      double *u, double *v, Py_ssize_t *row_of_col, Py_ssize_t *way, double *min_slack,
                      Py_ssize_t *used, Py_ssize_t *free_cols, char *is_free)
{
    for (Py_ssize_t i = 0; i <= rows; i++)
        u[i] = 0.0;
    for (Py_ssize_t c = 0; c <= cols; c++) {
        v[c] = 0.0;
        row_of_col[c] = 0;
        way[c] = 0;
    }
    for (Py_ssize_t row = 1; row <= rows; row++) {
        row_of_col[0] = row;
        Py_ssize_t col = 0, n_used = 1, n_free = cols;
        used[0] = 0;
        for (Py_ssize_t c = 0; c <= cols; c++) {
            min_slack[c] = INFINITY;
            is_free[c] = c > 0;
        }
        for (Py_ssize_t k = 0; k < cols; k++)
            free_cols[k] = k + 1;
        while (row_of_col[col] != 0) {
            Py_ssize_t current_row = row_of_col[col];
            double shift = u[current_row], delta = INFINITY;
            Py_ssize_t next_col = 0;
            for (Py_ssize_t k = 0; k < n_free; k++) {
                Py_ssize_t c = free_cols[k];
                /* cost(r, c): the negated gain of stack j on tower i; rows are the stacks where
                 * more towers are seen than stacks stand (transposed), the towers otherwise. */
                double value = transposed ? gains[(current_row - 1) * seen + (c - 1)]
                                          : gains[(c - 1) * seen + (current_row - 1)];
                double slack = -value - shift - v[c];
                if (slack < min_slack[c]) {
                    min_slack[c] = slack;
                    way[c] = col;
                }
                if (min_slack[c] < delta) {
                    delta = min_slack[c];
                    next_col = c;
                }
            }
            if (next_col == 0) /* nothing below inf: NumPy's argmin picks the first column */
                next_col = 1;
            for (Py_ssize_t k = 0; k < n_used; k++) {
                u[row_of_col[used[k]]] += delta;
                v[used[k]] -= delta;
            }
            for (Py_ssize_t k = 0; k < n_free; k++)
                min_slack[free_cols[k]] -= delta;
            col = next_col;
            if (is_free[col]) {
                used[n_used++] = col;
                is_free[col] = 0;
                Py_ssize_t k = 0;
                while (free_cols[k] != col)
                    k++;
                for (; k + 1 < n_free; k++)
                    free_cols[k] = free_cols[k + 1];
                n_free--;
            }
        }
        while (col) {
            Py_ssize_t previous = way[col];
            row_of_col[col] = row_of_col[previous];
            col = previous;
        }
    }
}

static PyObject *py_matched_gain(PyObject *self, PyObject *args)
{
    PyObject *columns;
    Py_ssize_t seen;
    if (!PyArg_ParseTuple(args, "O!n", &PyList_Type, &columns, &seen))
        return NULL;
    Py_ssize_t stacks = PyList_GET_SIZE(columns);
    if (stacks == 0 || seen <= 0)
        return PyFloat_FromDouble(0.0);
    int transposed = seen > stacks;
    Py_ssize_t rows = transposed ? stacks : seen, cols = transposed ? seen : stacks;
    Py_ssize_t n = cols + 1;
    double *gains = malloc(sizeof(double) * (size_t)(stacks * seen));
    double *doubles = malloc(sizeof(double) * (size_t)(rows + 1 + 2 * n));
    Py_ssize_t *indices = malloc(sizeof(Py_ssize_t) * (size_t)(4 * n + rows + 1));
    char *is_free = malloc((size_t)n);
    PyObject *result = NULL;
    if (gains == NULL || doubles == NULL || indices == NULL || is_free == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t j = 0; j < stacks; j++) {
        PyObject *column = PyList_GET_ITEM(columns, j);
        if (!PyList_Check(column) || PyList_GET_SIZE(column) != seen) {
            PyErr_SetString(PyExc_ValueError, "each column is a list of one gain per tower seen");
            goto done;
        }
        for (Py_ssize_t i = 0; i < seen; i++) {
            double value = PyFloat_AsDouble(PyList_GET_ITEM(column, i));
            if (value == -1.0 && PyErr_Occurred())
                goto done;
            gains[j * seen + i] = value;
        }
    }
    double *u = doubles, *v = doubles + rows + 1, *min_slack = v + n;
    Py_ssize_t *row_of_col = indices, *way = indices + n, *used = indices + 2 * n, *free_cols = indices + 3 * n;
    hungarian(gains, seen, transposed, rows, cols, u, v, row_of_col, way, min_slack, used, free_cols, is_free);
    /* The pairs in the order of the towers seen (`sorted(pairs)`), each gain counted above zero. */
    Py_ssize_t *stack_of_tower = free_cols; /* free again: one entry per tower seen */
    for (Py_ssize_t i = 0; i < seen; i++)
        stack_of_tower[i] = -1;
    for (Py_ssize_t c = 1; c <= cols; c++) {
        if (row_of_col[c]) {
            Py_ssize_t r = row_of_col[c] - 1;
            if (transposed)
                stack_of_tower[c - 1] = r;
            else
                stack_of_tower[r] = c - 1;
        }
    }
    double matched = 0.0;
    for (Py_ssize_t i = 0; i < seen; i++) {
        if (stack_of_tower[i] >= 0) {
            double gain = gains[stack_of_tower[i] * seen + i];
            matched += gain > 0.0 ? gain : 0.0;
        }
    }
    result = PyFloat_FromDouble(matched);
done:
    free(gains);
    free(doubles);
    free(indices);
    free(is_free);
    return result;
}

static PyMethodDef methods[] = {
    {"matched_gain", py_matched_gain, METH_VARARGS,
     "matched_gain(columns, seen) -> the summed gains (above zero) of the least-cost matching of the "
     "negated gains, one column (a list of `seen` floats) per candidate stack (see "
     "vision/varanasi_observation.py)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_varanasi_assignment",
                                    "The Varanasi judge's matching of stacks to towers (see "
                                    "vision/varanasi_observation.py).", -1, methods};

PyMODINIT_FUNC PyInit__varanasi_assignment(void)
{
    return PyModule_Create(&module);
}
