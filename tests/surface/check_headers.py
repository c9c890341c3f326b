#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Every installed header, alone, as a user's program would include it.

For each header given on the command line (the list lib/meson.build
installs), a one-line translation unit that includes it twice must compile:

  * as C:   CC  -std=c11 -Wall -Wextra -Werror -pedantic (no feature macro:
            the header must not need _POSIX_C_SOURCE or _GNU_SOURCE);
  * as C++: CXX -std=c++11 -Wall -Wextra -Werror (extern "C", no C-only
            construct);

and every identifier it defines at file scope (function, variable, type,
struct/union/enum tag, enum constant: read from clang's AST; macro: read
from the text) must start with unic_ or UNIC_.

usage: check_headers.py --cc CC --cxx CXX --clang CLANG -I DIR... HEADER...
Prints one line per problem and exits 1 if there is any.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

PREFIX = re.compile(r'^(unic_|UNIC_)')


def compile_one(cmd, src, suffix):
    with tempfile.NamedTemporaryFile('w', suffix=suffix, delete=False) as f:
        f.write(src)
        path = f.name
    try:
        r = subprocess.run(cmd + ['-fsyntax-only', path],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                           text=True)
        return r.returncode, r.stdout
    finally:
        os.unlink(path)


def ast_names(clang, incs, inc_name, header_path, lang='c'):
    """(kind, name) of every file-scope declaration written in header_path;
    in C++, the functions and variables with external linkage that are not
    inside extern "C" come as ('C++ linkage', name)."""
    src = '#include <%s>\n' % inc_name
    with tempfile.NamedTemporaryFile('w', suffix='.' + lang, delete=False) as f:
        f.write(src)
        path = f.name
    std = '-std=gnu11' if lang == 'c' else '-std=c++11'
    try:
        r = subprocess.run([clang, '-x', 'c' if lang == 'c' else 'c++', std, '-fsyntax-only',
                            '-Xclang', '-ast-dump=json'] + incs + [path],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    finally:
        os.unlink(path)
    if r.returncode != 0:
        return None, r.stderr
    ast = json.loads(r.stdout)
    want = os.path.realpath(header_path)
    # clang names a location's file only when it differs from the previous
    # location printed, so the walk follows every location in order.
    cur = [None]

    def track(o):
        if isinstance(o, dict):
            if 'file' in o:
                cur[0] = o['file']
            for k, v in o.items():
                if k != 'includedFrom':
                    track(v)
        elif isinstance(o, list):
            for v in o:
                track(v)

    out = set()

    def record(n):
        if n.get('isImplicit'):
            return
        if n.get('name') and n['kind'] not in ('FieldDecl', 'ParmVarDecl',
                                               'IndirectFieldDecl'):
            out.add((n['kind'], n['name']))
        for c in n.get('inner', []):
            if c['kind'] == 'EnumConstantDecl':
                out.add((c['kind'], c['name']))
            elif c['kind'] in ('RecordDecl', 'EnumDecl'):
                record(c)   # a tag defined inside a struct has file scope

    def cxx_linkage(n):
        if n['kind'] in ('FunctionDecl', 'VarDecl') and n.get('storageClass') != 'static':
            out.add(('C++ linkage', n['name']))

    for n in ast.get('inner', []):
        loc = n.get('loc', {})
        if 'expansionLoc' in loc:
            track(loc.get('spellingLoc', {}))
            track(loc['expansionLoc'])
        else:
            track(loc)
        f = cur[0]
        if f and os.path.realpath(f) == want:
            if lang == 'c':
                record(n)
            elif n['kind'] != 'LinkageSpecDecl':
                cxx_linkage(n)
        for k, v in n.items():
            if k != 'loc':
                track(v)
    return out, None


def macro_names(header_path):
    text = open(header_path).read()
    return set(re.findall(r'^\s*#\s*define\s+(\w+)', text, re.M))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cc', required=True)
    ap.add_argument('--cxx', required=True)
    ap.add_argument('--clang', required=True)
    ap.add_argument('-I', dest='incs', action='append', default=[])
    ap.add_argument('headers', nargs='+')
    a = ap.parse_args()

    for tool, pkg in ((a.cc, 'gcc'), (a.cxx, 'g++'), (a.clang, 'clang')):
        if shutil.which(tool) is None:
            print('%s not found; install it with: apt-get install %s '
                  '(tools/install-deps does)' % (tool, pkg))
            return 1
    incs = ['-I' + d for d in a.incs]
    bad = 0
    for h in a.headers:
        name = 'unic/' + os.path.basename(h)
        src = '#include <%s>\n#include <%s>\n' % (name, name)
        src += 'int unic_header_test_main(void);\nint unic_header_test_main(void) { return 0; }\n'
        for what, cmd, suffix in (
                ('C (-std=c11 -pedantic)',
                 [a.cc, '-std=c11', '-Wall', '-Wextra', '-Werror', '-pedantic'], '.c'),
                ('C++ (-std=c++11)',
                 [a.cxx, '-std=c++11', '-Wall', '-Wextra', '-Werror'], '.cc')):
            rc, log = compile_one(cmd + incs, src, suffix)
            if rc != 0:
                bad += 1
                print('%s: does not compile alone as %s:' % (name, what))
                print('  ' + '\n  '.join(log.strip().splitlines()[:15]))
        names, err = ast_names(a.clang, incs, name, h)
        if names is None:
            bad += 1
            print('%s: clang could not read it: %s' % (name, err.strip()[:500]))
            continue
        names |= {('macro', m) for m in macro_names(h)}
        cxx, err = ast_names(a.clang, incs, name, h, 'cc')
        if cxx is None:
            bad += 1
            print('%s: clang could not read it as C++: %s' % (name, err.strip()[:500]))
            continue
        for _, n in sorted(cxx):
            bad += 1
            print('%s: %s has C++ linkage in a C++ program (declare it inside '
                  'extern "C", or a C++ program cannot link it)' % (name, n))
        for kind, n in sorted(names):
            if not PREFIX.match(n):
                bad += 1
                print('%s: %s %s is not prefixed unic_/UNIC_ (a user\'s '
                      'program may define the same name)' % (name, kind, n))
        print('%s: %d identifiers checked' % (name, len(names)))
    # unic.h is "everything libunic exports": it includes every other header.
    umbrella = [h for h in a.headers if os.path.basename(h) == 'unic.h']
    if umbrella:
        text = open(umbrella[0]).read()
        for h in a.headers:
            b = os.path.basename(h)
            if b in ('unic.h', 'unic_config.h'):
                continue
            if '#include <unic/%s>' % b not in text:
                bad += 1
                print('unic/unic.h: does not include <unic/%s> (it is meant to '
                      'include every installed header)' % b)
    if bad:
        print('%d problem(s) in the installed headers' % bad)
        return 1
    print('every installed header compiles alone as C11 and C++11 and defines only unic_/UNIC_ names')
    return 0


if __name__ == '__main__':
    sys.exit(main())
