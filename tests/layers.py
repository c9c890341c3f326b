#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The layer order of lib/, pmd/ and apps/, checked on every #include.

A file may include the headers of its own module and of the modules in
lower layers, never those of its own layer's other modules or of a higher
layer. A module's private headers (lib/<mod>/*.h, pmd/<drv>/*.h) are its
own. Run by meson in the unit suite; by hand:  tests/layers.py [SOURCE_ROOT]
Exit 0 when every include keeps the order, 1 with one line per violation.
"""
import os
import re
import sys

# ---- the table: the only place the order is written ------------------------
# Lowest first. lib/net reads struct unic_pkt (unic/pkt.h, lib/pool), so it
# sits above pool. Drivers (pmd/*) build on the port layer's driver kit
# (lib/internal/unic_port_driver.h) and sit beside napi: neither sees the
# other, and port reaches the drivers only through its table (a link-time
# reference, declared in lib/internal/unic_pmds.h).
LAYERS = [
    ['common'],
    ['ring', 'mem'],
    ['pool', 'event'],
    ['net'],
    ['bus'],
    ['port'],
    ['napi', 'pmd'],
    ['telemetry'],
    ['env'],
    ['unic.h'],   # the umbrella header: everything an application sees
    ['apps'],
]

# Installed headers (lib/include/unic/<name>) by the module that owns them.
INSTALLED = {
    'common.h': 'common', 'barrier.h': 'common', 'cycles.h': 'common',
    'log.h': 'common', 'thread.h': 'common', 'unic_config.h': 'common',
    'counter.h': 'common',
    'ring.h': 'ring',
    'mem.h': 'mem',
    'pkt.h': 'pool', 'pool.h': 'pool',
    'event.h': 'event',
    'cksum.h': 'net', 'net.h': 'net',
    'bus.h': 'bus',
    'port.h': 'port', 'driver.h': 'port', 'flow.h': 'port',
    'napi.h': 'napi',
    'telemetry.h': 'telemetry',
    'env.h': 'env',
    'unic.h': 'unic.h',
}

# lib/internal/<name>: unic_<module>_*.h belongs to <module>; the rest here.
INTERNAL = {
    'unic_pmds.h': 'port',   # the driver table's entries, for drivers.c
    'unic_conf.h': 'common', # the option-struct size rule (unic_conf_copy)
}

# Named exceptions: (file, included header) pairs allowed against the order,
# each with the reason. Empty: there is none.
EXCEPTIONS = {
}
# ------------------------------------------------------------------------------

RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}
INCLUDE_RE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def layer_of(module):
    """'pmd/e1000e' -> 'pmd'."""
    return module.split('/')[0]


def module_of_file(rel):
    """The module a source file belongs to, or None when it is not checked."""
    parts = rel.split('/')
    if parts[0] == 'apps':
        return 'apps'
    if parts[0] == 'pmd' and len(parts) > 2:
        return 'pmd/' + parts[1]
    if parts[0] != 'lib' or len(parts) < 3:
        return None
    if parts[1] == 'include' and parts[2] == 'unic':
        return INSTALLED.get(parts[3])
    if parts[1] == 'internal':
        return internal_module(parts[2])
    return parts[1]


def internal_module(name):
    if name in INTERNAL:
        return INTERNAL[name]
    m = re.match(r'unic_([a-z0-9]+)_.*\.h$', name)
    if m and m.group(1) in RANK:
        return m.group(1)
    return None


class Unresolved(Exception):
    pass


def resolve(root, rel, kind, name):
    """(module, private_owner) of an included header; None for the system's.

    private_owner is set for a module's own headers (lib/<mod>/*.h,
    pmd/<drv>/*.h, apps/**): only that module may include them."""
    if kind == '<':
        if not name.startswith('unic/'):
            return None
        base = name[len('unic/'):]
        if base not in INSTALLED:
            raise Unresolved('<%s> is not in the INSTALLED table of tests/layers.py' % name)
        return INSTALLED[base], None
    # "x.h": the including file's folder, then lib/include, lib/internal, lib/
    # (the include path of lib/ and pmd/), then apps/common for apps.
    here = os.path.dirname(rel)
    for d in (here, 'lib/include', 'lib/internal', 'lib', 'apps/common'):
        cand = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, cand)):
            break
    else:
        if name == 'unic/unic_config.h' or name.endswith('unic_config.h'):
            return 'common', None
        raise Unresolved('"%s" is not found beside the file, in lib/include, lib/internal or lib/' % name)
    parts = cand.split('/')
    if parts[0] == 'lib' and parts[1] == 'include':
        return resolve(root, rel, '<', '/'.join(parts[2:]))
    if parts[0] == 'lib' and parts[1] == 'internal':
        mod = internal_module(parts[2])
        if mod is None:
            raise Unresolved('%s has no layer: name it unic_<module>_*.h or add it to INTERNAL in tests/layers.py' % cand)
        return mod, None
    if parts[0] == 'lib':
        return parts[1], parts[1]
    if parts[0] == 'pmd':
        return 'pmd/' + parts[1], 'pmd/' + parts[1]
    if parts[0] == 'apps':
        return 'apps', 'apps'
    raise Unresolved('"%s" resolves to %s, outside lib/, pmd/ and apps/' % (name, cand))


def check_include(mod, inc_mod, private):
    """None if @mod may include a header of @inc_mod, else the rule broken."""
    if inc_mod == mod:
        return None
    if private is not None:
        return "the headers in %s's folder are for its own files only" % private
    lm, li = layer_of(mod), layer_of(inc_mod)
    if RANK[li] > RANK[lm]:
        return 'a layer includes only lower layers: ' + ' -> '.join(
            ', '.join(layer) for layer in LAYERS)
    if RANK[li] == RANK[lm]:
        return 'modules of one layer do not include each other (%s)' % ', '.join(LAYERS[RANK[lm]])
    return None


def source_files(root):
    for top in ('lib', 'pmd', 'apps'):
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, top)):
            dirnames.sort()
            for f in sorted(filenames):
                if f.endswith(('.c', '.h')):
                    yield os.path.relpath(os.path.join(dirpath, f), root)


def main(argv):
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), '..')
    root = os.path.abspath(root)
    problems = []
    nfiles = ninc = 0
    for rel in source_files(root):
        mod = module_of_file(rel)
        if mod is None:
            problems.append('%s: the file belongs to no module of tests/layers.py (add it to INSTALLED or INTERNAL)' % rel)
            continue
        nfiles += 1
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            for lineno, line in enumerate(f, 1):
                m = INCLUDE_RE.match(line)
                if not m:
                    continue
                kind, name = m.groups()
                try:
                    r = resolve(root, rel, kind, name)
                except Unresolved as e:
                    problems.append('%s:%d: #include %s%s%s: %s' % (
                        rel, lineno, kind, name, '>' if kind == '<' else '"', e))
                    continue
                if r is None:
                    continue
                ninc += 1
                inc_mod, private = r
                rule = check_include(mod, inc_mod, private)
                if rule is None or (rel, name) in EXCEPTIONS:
                    continue
                problems.append('%s:%d: #include %s%s%s: %s (layer %s) includes %s (layer %s); %s' % (
                    rel, lineno, kind, name, '>' if kind == '<' else '"', mod, layer_of(mod),
                    inc_mod, layer_of(inc_mod), rule))
    for p in problems:
        print(p)
    if problems:
        print('layers: %d violation(s); the order is the LAYERS table of tests/layers.py and docs/architecture.md, "Layers"' % len(problems))
        return 1
    print('layers: %d files, %d includes of unic headers, in order' % (nfiles, ninc))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
