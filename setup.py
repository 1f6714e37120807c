"""The compiled parts of Arbiter, kernels of Varanasi recognition: the rim tests
(vision/varanasi_rims.c), the colour edges (vision/varanasi_edges.c), the centre votes
(vision/varanasi_votes.c), the ring medians (vision/varanasi_rings.c), the pixel labels
(vision/varanasi_labels.c) and the judge's matching of stacks to towers
(vision/varanasi_assignment.c); of Nanku recognition, the drawn windows' pixel costs
(vision/nanku_costs.c); the rest of the package is described in pyproject.toml."""
from setuptools import Extension, setup

# No fused multiply-adds: the kernels must round as numpy and OpenCV do, after each operation. pip
# builds them on the machine that runs them, so for that machine's processor (as a just-in-time
# compiler would; about a fifth faster here than for a baseline processor).
FLAGS = ["-O3", "-ffp-contract=off", "-march=native"]

setup(ext_modules=[
    Extension("vision._varanasi_rims", ["vision/varanasi_rims.c"], extra_compile_args=FLAGS),
    # A square root that never sets errno: the loops over a row's pixels vectorise.
    Extension("vision._varanasi_edges", ["vision/varanasi_edges.c"], extra_compile_args=[*FLAGS, "-fno-math-errno"]),
    Extension("vision._varanasi_rings", ["vision/varanasi_rings.c"], extra_compile_args=FLAGS),
    Extension("vision._varanasi_labels", ["vision/varanasi_labels.c"], extra_compile_args=FLAGS),
    Extension("vision._varanasi_votes", ["vision/varanasi_votes.c"], extra_compile_args=FLAGS),
    Extension("vision._varanasi_assignment", ["vision/varanasi_assignment.c"], extra_compile_args=FLAGS),
    Extension("vision._nanku_costs", ["vision/nanku_costs.c"], extra_compile_args=FLAGS),
])
