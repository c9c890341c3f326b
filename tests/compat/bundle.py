#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""bundle.py OUT FILE...: the files in one, each after a line
"#### FILE <its name>" (the QEMU rig's guest unpacks them: unic-compat-rig)."""
import os
import sys

with open(sys.argv[1], "w") as out:
    for path in sys.argv[2:]:
        with open(path) as f:
            text = f.read()
        out.write("#### FILE %s\n%s" % (os.path.basename(path), text if text.endswith("\n") else text + "\n"))
