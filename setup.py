"""The one compiled part of Arbiter, the Varanasi rim tests' kernel (vision/varanasi_rims.c); the
rest of the package is described in pyproject.toml."""
from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "vision._varanasi_rims", ["vision/varanasi_rims.c"],
    # No fused multiply-adds: the kernel must round as numpy does, after each operation. pip builds
    # it on the machine that runs it, so for that machine's processor (as a just-in-time compiler
    # would; about a fifth faster here than for a baseline processor).
    extra_compile_args=["-O3", "-ffp-contract=off", "-march=native"],
)])
