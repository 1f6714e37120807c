"""A small ray tracer of Wari boards and the bench-format sessions it writes (`python -m training.wari_render`).

Modules, each one job: `geometry` (vectors, ray-surface intersections), `scene` (what a photo
shows), `setup` (a session's board, camera and lamp drawn from its style and number), `seeds`
(seeds settling in their bowls), `trace` (what each camera ray hits), `lighting` (shadows,
materials, shading), `photo` (one developed photo), `session` (the session folder and the
command line).
"""
