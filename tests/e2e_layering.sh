#!/usr/bin/env bash
# The build enforces the layering of DESIGN.md: each part compiles with the
# include folders of the parts it declares only, so a source of a lower part
# that includes a higher part's header does not compile, and one that
# includes its own or a lower part's header does. Compiled with each part's
# own command line from the build's compile_commands.json.
set -u
build=$1
exec python3 - "$build" <<'PY'
import json, os, shlex, subprocess, sys, tempfile

build = sys.argv[1]
# part: (a source of it, its public header, the parts it may use)
parts = {
    'eal': ('eal/lca_eal.c', 'lca_eal.h', {'eal'}),
    'mempool': ('mempool/lca_mempool.c', 'lca_mempool.h', {'eal', 'mempool'}),
    'lcore': ('lcore/lca_lcore.c', 'lca_lcore.h', {'eal', 'lcore'}),
    'actors': ('actors/lca_actor.c', 'lca_actor.h', {'eal', 'mempool', 'lcore', 'actors'}),
    'port': ('actors/port/lca_port.c', 'lca_port.h', {'eal', 'mempool', 'lcore', 'actors', 'port'}),
    'remote': ('actors/remote/lca_remote.c', 'lca_remote.h',
               {'eal', 'mempool', 'lcore', 'actors', 'port', 'remote'}),
}
cmds = json.load(open(os.path.join(build, 'compile_commands.json')))
fail = 0
with tempfile.TemporaryDirectory() as tmp:
    for part, (src, _, uses) in parts.items():
        # The part's own library, not the combined one.
        entry = next((c for c in cmds if c['file'].endswith(src) and
                      ('lca_' + part) in c['output']), None)
        if entry is None:
            print(f'not ok - {part}: no compile command for {src}')
            fail = 1
            continue
        for other, (_, header, _) in parts.items():
            probe = os.path.join(tmp, f'{part}_{other}.c')
            with open(probe, 'w') as f:
                f.write(f'#include "{header}"\nint lca_layering_probe;\n')
            args, skip = [], 0
            for a in shlex.split(entry['command']):
                if skip:
                    skip -= 1
                elif a in ('-MQ', '-MF', '-o'):
                    skip = 1
                elif a not in ('-MD', '-c') and not a.endswith(src):
                    args.append(a)
            args += ['-fsyntax-only', probe]
            ok = subprocess.run(args, cwd=entry['directory'],
                                capture_output=True).returncode == 0
            want = other in uses
            verb = 'compiles' if want else 'fails to compile'
            print(f'{"ok" if ok == want else "not ok"} - {part} including {header} {verb}')
            fail |= ok != want
sys.exit(fail)
PY
