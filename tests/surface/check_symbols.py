#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The symbols the installed libraries define, read with nm.

usage: check_symbols.py NM LIBUNIC_SO LIBUNIC_A HEADER...

For libunic.so (its dynamic symbol table) and libunic.a (every member), each
global symbol it defines must
  * start with unic_ or UNIC_ (a program that defines poll32 or bus_path
    must link against unic, statically or not), unless the toolchain adds
    it (TOOLCHAIN below, by name);
  * be declared in an installed header (HEADER...): what a program cannot
    see a declaration of is not API, and exporting it anyway makes it ABI.
Both libraries must export the same set. Prints each problem; exits 1 if any.
"""
import re
import subprocess
import sys

# What the linker may define in a shared object or an archive member on its
# own: none of these is ours, none can be prefixed.
TOOLCHAIN = {'_init', '_fini', '__bss_start', '_edata', '_end'}
PREFIX = re.compile(r'^(unic_|UNIC_)')
# AddressSanitizer adds an one-definition-rule indicator beside each exported
# variable (__odr_asan.unic_log_levels): allowed when it names one of ours.
ASAN_ODR = re.compile(r'^__odr_asan[._](gen_)?(unic_|UNIC_)')


def defined_globals(nm, path, dynamic):
    args = [nm, '--defined-only', '--extern-only']
    if dynamic:
        args.append('--dynamic')
    out = subprocess.run(args + [path], check=True, stdout=subprocess.PIPE,
                         text=True).stdout
    syms = set()
    for line in out.splitlines():
        f = line.split()
        # "value type name"; archive member headers ("x.o:") and blank
        # lines have another shape. A version node (type A) is no symbol.
        if len(f) == 3 and f[1] != 'A' and not ASAN_ODR.match(f[2]):
            syms.add(f[2].split('@')[0])
    return syms


def main():
    if len(sys.argv) < 5:
        print(__doc__)
        return 2
    nm, so, ar, headers = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
    text = ''.join(open(h).read() for h in headers)
    text = re.sub(r'/\*.*?\*/|//[^\n]*', ' ', text, flags=re.S)  # not comments
    declared = set(re.findall(r'\b(unic_\w+|UNIC_\w+)\b', text))
    bad = 0
    sets = {}
    for path, dyn in ((so, True), (ar, False)):
        syms = defined_globals(nm, path, dyn)
        sets[path] = syms
        if not syms:
            bad += 1
            print('%s: nm found no global symbol at all' % path)
        for s in sorted(syms - TOOLCHAIN):
            if not PREFIX.match(s):
                bad += 1
                print('%s: global symbol %s is not prefixed unic_ (make it '
                      'static, or hidden: only the installed headers mark '
                      'symbols visible)' % (path, s))
            elif s not in declared:
                bad += 1
                print('%s: global symbol %s is declared in no installed '
                      'header (internal: keep it hidden)' % (path, s))
        print('%s: %d global symbols' % (path, len(syms)))
    only_so = sets[so] - sets[ar] - TOOLCHAIN
    only_ar = sets[ar] - sets[so] - TOOLCHAIN
    for s in sorted(only_so):
        bad += 1
        print('%s exports %s, %s does not' % (so, s, ar))
    for s in sorted(only_ar):
        bad += 1
        print('%s exports %s, %s does not' % (ar, s, so))
    if bad:
        print('%d problem(s) in the libraries\' symbols' % bad)
        return 1
    print('libunic.so and libunic.a define the same %d global symbols, each '
          'unic_/UNIC_ and declared in an installed header' % len(sets[so]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
