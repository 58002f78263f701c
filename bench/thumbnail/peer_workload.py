"""The peer's side of `workload.ts`, for callgrind: every image file of DIR thumbnailed ROUNDS times
(after one warm-up round) by the peer's own `thumbnail_png` (bench/peer/server.py), in this process.
    python3 bench/thumbnail/peer_workload.py DIR ROUNDS WIDTH HEIGHT STRATEGY
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "peer"))
from server import thumbnail_png  # noqa: E402

folder, rounds, width, height, strategy = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
files = sorted(os.path.join(folder, name) for name in os.listdir(folder))
for _ in range(rounds + 1):
    for path in files:
        thumbnail_png(path, width, height, strategy, None)
