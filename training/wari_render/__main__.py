import sys

from training.wari_render.session import main

sys.exit(main(sys.argv[1:]))
