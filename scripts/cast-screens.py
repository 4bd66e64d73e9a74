#!/usr/bin/env python3
"""Plays an asciicast v2 into pyte, a terminal emulator, and prints the screen at each marker.

Usage: scripts/cast-screens.py CAST. Prints a JSON list, one entry per "m" event:
{"time": seconds, "label": the marker's label, "lines": the screen's rows, trailing blanks
stripped}, the screen holding every "o" event up to that marker. EvidenceEndToEndTests compares
these screens with the replay's own frames at the same moments.
"""
import json
import sys

import pyte


def main(path):
    with open(path, encoding="utf-8") as cast:
        header = json.loads(cast.readline())
        screen = pyte.Screen(header["width"], header["height"])
        stream = pyte.Stream(screen)
        screens = []
        for line in cast:
            if not line.strip():
                continue
            time, code, data = json.loads(line)
            if code == "o":
                stream.feed(data)
            elif code == "r":
                width, height = (int(v) for v in data.split("x"))
                screen.resize(height, width)
            elif code == "m":
                screens.append({"time": time, "label": data, "lines": [row.rstrip() for row in screen.display]})
    json.dump(screens, sys.stdout, ensure_ascii=False)


if __name__ == "__main__":
    main(sys.argv[1])
