#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The sources and docs stand alone: no citation of a document outside the
repository.

A comment or a page that says "see STYLE rule 6", "(issue 6)", "DESIGN.md"
or "user pains #8" sends its reader to something a clone does not have; say
the rule itself instead. This looks for such citations in every file of the
folders below (and the top-level files named), as text, and prints one line
per hit. Run by meson in the unit suite; by hand:
    tests/citations.py [SOURCE_ROOT]
Exit 0 when there is none, 1 with one line per citation.
"""
import os
import re
import sys

DIRS = ['lib', 'pmd', 'apps', 'tools', 'examples', 'docs', 'tests', '.ci']
FILES = ['README.md', 'meson.build', 'meson_options.txt']
# This file names the patterns it looks for.
SKIP = {os.path.join('tests', 'citations.py')}

# What a citation of an outside document looks like, and what it cites.
PATTERNS = [
    (re.compile(r'\bDESIGN\.md\b'), 'a design document outside the repository'),
    (re.compile(r'\bSTYLE\b'), 'a style guide outside the repository (say the rule itself)'),
    (re.compile(r'\b[Ii]ssues? #?[0-9]+'), 'an issue tracker entry'),
    (re.compile(r'\b[Uu]ser[ -]pains\b|\bpains #'), 'a list of user pains outside the repository'),
    (re.compile(r'(^|[\s(`"\'/])shared/'), 'a file under shared/, outside the repository'),
    (re.compile(r'\bDEVELOPERS\.md\b'), 'a document outside the repository'),
]


def files(root):
    for d in DIRS:
        top = os.path.join(root, d)
        for dirpath, dirnames, filenames in os.walk(top):
            # Build trees and caches are not sources.
            dirnames[:] = sorted(n for n in dirnames
                                 if not n.startswith('build') and n != '__pycache__')
            for n in sorted(filenames):
                yield os.path.relpath(os.path.join(dirpath, n), root)
    for f in FILES:
        if os.path.exists(os.path.join(root, f)):
            yield f


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(__file__), '..')
    hits = 0
    for rel in files(root):
        if rel in SKIP:
            continue
        path = os.path.join(root, rel)
        try:
            with open(path, 'rb') as f:
                data = f.read(1 << 20)
        except OSError:
            continue
        if b'\0' in data:
            continue  # binary
        for no, line in enumerate(data.decode('utf-8', 'replace').splitlines(), 1):
            for rx, what in PATTERNS:
                m = rx.search(line)
                if m:
                    print(f'{rel}:{no}: cites {what}: "{line.strip()}"')
                    hits += 1
                    break
    if hits:
        print(f'{hits} citation(s) of documents outside the repository: '
              'say what they say instead (docs/ and the sources stand alone)')
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
