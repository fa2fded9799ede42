#!/usr/bin/env python3
"""Which AsyncBridge types a value crosses on one path (README, "Types on a path").

Usage: path-types.py SMALL.cg LARGE.cg [--list]

SMALL and LARGE are callgrind files of `path-types PATH N` at two N. A function of AsyncBridge
(mangled `$s11AsyncBridge...`) is on the per-iteration path when its call count (the sum of the
`calls=` lines naming it as callee) or its self Ir grows from SMALL to LARGE. Each such function
is attributed to the type that owns it, or is a free function. Prints the number of types and
their sorted list (`*`: reached only through compiler-generated helpers such as metadata
accessors, outlined copies and value witnesses), then the free functions. --list also prints
every function counted: its calls in both files, its owner and its demangled name.
"""
import re
import subprocess
import sys
from collections import defaultdict

PREFIX = '$s11AsyncBridge'


def parse(path):
    """{function: (calls into it, self Ir)} of a callgrind file (with its name compression)."""
    names, calls, self_ir = {}, defaultdict(int), defaultdict(int)
    fn = callee = None
    after_calls = False
    ref = re.compile(r'^\((\d+)\)(?: (.*))?$')

    def resolve(value):  # `(id) name` defines id, `(id)` refers to it
        m = ref.match(value)
        if not m:
            return value
        if m.group(2) is not None:
            names[m.group(1)] = m.group(2)
        return names[m.group(1)]

    with open(path) as f:
        for line in f:
            line = line.rstrip('\n')
            if not line:
                continue
            if line[0].isdigit() or line[0] in '+-*':  # a cost line: position, Ir
                if after_calls:
                    after_calls = False  # the inclusive cost of the call above: not self cost
                elif fn is not None and len(line.split()) > 1:
                    self_ir[fn] += int(line.split()[1])
                continue
            key, _, value = line.partition('=')
            if key == 'fn':
                fn = resolve(value)
            elif key == 'cfn':
                callee = resolve(value)
            elif key == 'calls':
                calls[callee] += int(value.split()[0])
                after_calls = True
    return {f: (calls.get(f, 0), self_ir.get(f, 0)) for f in set(calls) | set(self_ir)}


# Wrappers whose owner is the entity after them: closures, partial applies, async partials, thunks.
WRAP = re.compile(r'^(?:partial apply for |merged |\(\d+\) (?:await|suspend) resume partial function for |'
                  r'(?:implicit )?closure #\d+ (?:<[^ ]*> )?in |\$defer #\d+ (?:<[^>]*>)*\(\) in |'
                  r'dispatch thunk of |(?:\w+ )*specialization <[^>]*> of )')
# Compiler-generated helpers about a type: the owner is that type.
HELPER = re.compile(r'^(type metadata accessor for|type metadata instantiation function for|'
                    r'type metadata completion function for|type metadata for|'
                    r'outlined (?:copy|consume|destroy|retain|release|init with copy|init with take|'
                    r'assign with take|assign with copy|variadic .*?) of|'
                    r'(?:destroy|initializeWithCopy|initializeWithTake|assignWithCopy|assignWithTake|'
                    r'initializeBufferWithCopyOfBuffer|getEnumTagSinglePayload|storeEnumTagSinglePayload|'
                    r'getEnumTag|destructiveProjectEnumData|destructiveInjectEnumTag)(?: value witness)? for|'
                    r'variable initialization expression of|one-time initialization function for|'
                    r'nominal type descriptor for|protocol conformance descriptor for|'
                    r'method lookup function for|class metadata base offset for|'
                    r'associated type descriptor for|protocol witness table for) (.*)$')
ACCESSORS = {'getter', 'setter', 'modify', 'read', 'unsafeMutableAddressor', 'unsafeAddressor',
             'didset', 'willset', 'materializeForSet'}  # init and deinit are members, not accessors


def drop_generics(s):
    out, depth = [], 0
    for ch in s:
        if ch == '<':
            depth += 1
        elif ch == '>':
            depth -= 1
        elif depth == 0:
            out.append(ch)
    return ''.join(out)


def owner(demangled):
    """(kind, name, is_helper) of a demangled name; kind is 'type', 'function' or 'other'."""
    s = demangled
    while (m := WRAP.match(s)):
        s = s[m.end():]
    if re.match(r'^(?:async )?(?:reabstraction )?thunk (?:helper )?(?:for|from) ', s):
        return ('other', 'thunk for a function type', True)  # owned by a function type
    m = re.match(r'^lazy protocol witness table accessor for type (.*?) and conformance ', s)
    if m:
        return ('type', drop_generics(m.group(1)).strip(), True)
    m = HELPER.match(s)
    if m:
        kind, s = m.group(1), m.group(2)
        if kind == 'variable initialization expression of':
            return ('type', drop_generics(s).rsplit('.', 1)[0], True)
        if kind == 'one-time initialization function for':
            return ('other', s, True)
        t = drop_generics(s).rstrip('?').strip()
        if t.startswith('('):
            return ('other', 'function type ' + s, True)  # e.g. an outlined copy of a closure
        return ('type', t, True)
    m = re.match(r'^protocol witness for .* in conformance (.*)$', s)
    if m:
        return ('type', drop_generics(m.group(1)).strip(), False)
    s = drop_generics(re.sub(r'^static ', '', s))
    s = s[:s.index('(', 1)] if '(' in s[1:] else s  # drop the argument list and what follows
    parts = s.split('.')
    while len(parts) > 1 and parts[-1] in ACCESSORS:
        parts.pop()
    type_path = []  # the leading components that are type names (capitalised)
    for p in parts[:-1]:
        if not p[:1].isupper():
            break
        type_path.append(p)
    if type_path:
        return ('type', '.'.join(type_path), False)
    if len(parts) == 1:
        return ('function', parts[0] + '()', False)
    return ('other', s, False)


def main():
    files = [a for a in sys.argv[1:] if not a.startswith('--')]
    if len(files) != 2:
        sys.exit(__doc__)
    small, large = parse(files[0]), parse(files[1])
    rows = []
    for fn in sorted(set(small) | set(large)):
        if not fn.startswith(PREFIX):
            continue
        (calls_s, ir_s), (calls_l, ir_l) = small.get(fn, (0, 0)), large.get(fn, (0, 0))
        if calls_l > calls_s or ir_l > ir_s:
            rows.append((fn, calls_s, calls_l))
    demangled = subprocess.run(['swift-demangle', '--simplified'], input='\n'.join(r[0] for r in rows),
                               capture_output=True, text=True, check=True).stdout.splitlines()
    assert len(demangled) == len(rows)
    found = [(owner(d), d, cs, cl) for (_, cs, cl), d in zip(rows, demangled)]
    types = {name for (kind, name, _), *_ in found if kind == 'type'}
    with_code = {name for (kind, name, helper), *_ in found if kind == 'type' and not helper}
    functions = sorted({name for (kind, name, _), *_ in found if kind == 'function'})
    other = sorted({name for (kind, name, _), *_ in found if kind == 'other'})
    print(f'types: {len(types)}')
    print('  ' + ', '.join(t + ('' if t in with_code else '*') for t in sorted(types)))
    print(f'free functions: {len(functions)}')
    print('  ' + ', '.join(functions))
    print(f'not attributed: {", ".join(other) or "-"}')
    print('(* = reached only through compiler-generated helpers)')
    if '--list' in sys.argv:
        for (kind, name, helper), d, cs, cl in sorted(found, key=lambda x: (x[0][1], x[1])):
            print(f'{cs:>8} {cl:>8} | {kind}:{name}{" (helper)" if helper else ""} | {d[:160]}')


if __name__ == '__main__':
    main()
