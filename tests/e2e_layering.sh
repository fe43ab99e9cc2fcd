#!/usr/bin/env bash
# The build enforces the layering of DESIGN.md: each part compiles with the
# include folders of the parts it declares only, so a source of a lower part
# that includes a higher part's header does not compile, and one that
# includes its own or a lower part's header does. Compiled with each part's
# own command line from the build's compile_commands.json.
#
# Inside the actor core, the include graph: which file includes which of the
# core's private headers (one a subsystem, and lca_actor_priv.h with the
# shared types), against the table below, so that the layering of the core
# cannot regress. Only lca_runtime.c, the composition root, sets up, polls
# and tears down the subsystems; the parts above the core (port, remote)
# include none of its private headers but lca_route_priv.h.
set -u
build=$1
src=${2:-$(cd "$(dirname "$0")/.." && pwd)}
exec python3 - "$build" "$src" <<'PY'
import glob, json, os, re, shlex, subprocess, sys, tempfile

build, root = sys.argv[1], sys.argv[2]
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

# The core's private headers, and who may include each: every file of the
# core (its .c and private .h) with the private headers it may include. A
# file not in the table, or an include outside its row, fails: a new edge
# is a decision, made here.
SHARED = 'lca_actor_priv.h'
PRIVATE = {SHARED, 'lca_ask_priv.h', 'lca_balance_priv.h', 'lca_channel_priv.h', 'lca_channel_links_priv.h',
           'lca_control_priv.h', 'lca_deadline_priv.h', 'lca_lane_priv.h', 'lca_migrate_priv.h', 'lca_registry_priv.h',
           'lca_route_priv.h', 'lca_send_priv.h', 'lca_supervise_priv.h', 'lca_telemetry_priv.h',
           'lca_timer_priv.h', 'lca_service_priv.h', 'lca_msg_priv.h'}
# What each subsystem sets up, polls and tears down: called from
# lca_runtime.c only (and from its own file); the lane's poll is the end of
# the channels' poll.
LIFECYCLE = {
    'lca_channel_priv.h': ('channels_init', 'channels_cleanup', 'channels_poll'),
    'lca_lane_priv.h': ('lanes_init', 'lanes_cleanup', 'lanes_poll'),
    'lca_migrate_priv.h': ('migrations_init', 'migrations_cleanup'),
    'lca_timer_priv.h': ('timers_init', 'timers_cleanup', 'timers_poll'),
    'lca_balance_priv.h': ('balance_init', 'balance_cleanup'),
    'lca_registry_priv.h': ('actor_services_init', 'actor_services_cleanup'),
    'lca_supervise_priv.h': ('supervision_quiet',),
    'lca_telemetry_priv.h': ('telemetry_runtime_up',),
    'lca_send_priv.h': ('lca_send_errors_reset',),
    'lca_service_priv.h': ('services_register', 'services_unregister'),
}
LIFECYCLE_ALSO = {'lanes_poll': {'lca_channel.c'}}
ALLOWED = {
    # the composition root: every subsystem
    'lca_runtime.c': {SHARED, 'lca_balance_priv.h', 'lca_channel_priv.h', 'lca_lane_priv.h', 'lca_migrate_priv.h',
                      'lca_registry_priv.h', 'lca_send_priv.h', 'lca_supervise_priv.h',
                      'lca_telemetry_priv.h', 'lca_timer_priv.h', 'lca_service_priv.h'},
    # the data model and the turn: what a turn and a spawn use
    'lca_actor.c': {SHARED, 'lca_ask_priv.h', 'lca_channel_priv.h', 'lca_control_priv.h', 'lca_deadline_priv.h',
                    'lca_lane_priv.h', 'lca_migrate_priv.h', 'lca_registry_priv.h', 'lca_supervise_priv.h'},
    'lca_send.c': {SHARED, 'lca_balance_priv.h', 'lca_channel_priv.h', 'lca_migrate_priv.h', 'lca_route_priv.h',
                   'lca_msg_priv.h', 'lca_send_priv.h'},
    # envelopes: where they come from and go back to
    'lca_msg.c': {SHARED, 'lca_msg_priv.h', 'lca_route_priv.h'},
    'lca_channel.c': {SHARED, 'lca_channel_priv.h', 'lca_channel_links_priv.h', 'lca_control_priv.h',
                      'lca_lane_priv.h', 'lca_migrate_priv.h'},
    'lca_channel_setup.c': {SHARED, 'lca_channel_priv.h', 'lca_channel_links_priv.h'},
    'lca_migrate.c': {SHARED, 'lca_channel_priv.h', 'lca_control_priv.h', 'lca_migrate_priv.h'},
    'lca_control.c': {SHARED, 'lca_channel_priv.h', 'lca_control_priv.h', 'lca_route_priv.h'},
    'lca_lane.c': {SHARED, 'lca_channel_priv.h', 'lca_lane_priv.h', 'lca_route_priv.h'},
    # a debug build's guard on the packets a handler holds
    'lca_pktguard.c': {SHARED, 'lca_lane_priv.h'},
    'lca_timer.c': {SHARED, 'lca_control_priv.h', 'lca_timer_priv.h'},
    'lca_supervise.c': {SHARED, 'lca_control_priv.h', 'lca_supervise_priv.h', 'lca_timer_priv.h'},
    'lca_balance.c': {SHARED, 'lca_balance_priv.h', 'lca_migrate_priv.h'},
    'lca_deadline.c': {SHARED, 'lca_deadline_priv.h'},
    'lca_telemetry.c': {SHARED, 'lca_registry_priv.h', 'lca_telemetry_priv.h'},
    # rte_service components: one a runtime lcore
    'lca_service.c': {SHARED, 'lca_service_priv.h'},
    # services: asks and names
    'lca_ask.c': {SHARED, 'lca_ask_priv.h'},
    'lca_registry.c': {SHARED, 'lca_ask_priv.h', 'lca_registry_priv.h'},
    'lca_payload.c': set(),
    'lca_mbuf.c': {SHARED},
    'lca_names.c': {SHARED},
    # tracepoints and logtypes: lca_trace_priv.h and lca_logtypes_priv.h are for every
    # part (core, port, remote), so they are not in PRIVATE
    'lca_trace_points.c': set(),
    'lca_logtypes.c': set(),
    # refusals' log lines and counts (lca_refuse_priv.h): for every part too
    'lca_refuse.c': set(),
    # the private headers: on the shared types only (a move's hooks take
    # the channel's control kinds)
    'lca_actor_priv.h': set(),
    'lca_route_priv.h': set(),
    'lca_balance_priv.h': set(),
    'lca_telemetry_priv.h': set(),
    'lca_ask_priv.h': set(),
    'lca_registry_priv.h': set(),
    'lca_migrate_priv.h': {SHARED, 'lca_channel_priv.h'},
}
for h in PRIVATE - set(ALLOWED):
    ALLOWED[h] = {SHARED}


def includes(path):
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(path).read(), re.M)


def code(path):
    """The file without its comments and strings."""
    text = open(path).read()
    text = re.sub(r'/\*.*?\*/', ' ', text, flags=re.S)
    text = re.sub(r'//[^\n]*', ' ', text)
    return re.sub(r'"(\\.|[^"\\])*"', '""', text)


core = sorted(glob.glob(os.path.join(root, 'actors', '*.c')) +
              [h for h in glob.glob(os.path.join(root, 'actors', '*.h'))
               if os.path.basename(h) in PRIVATE])
for path in core:
    name = os.path.basename(path)
    if name not in ALLOWED:
        print(f'not ok - core: {name} is not in the include table of e2e_layering.sh')
        fail = 1
        continue
    extra = sorted(set(includes(path)) & PRIVATE - ALLOWED[name])
    print(f'{"not ok" if extra else "ok"} - core: {name} includes only the private headers '
          f'its row allows' + (f' (not {", ".join(extra)})' if extra else ''))
    fail |= bool(extra)

# Only the composition root includes every subsystem that has a life cycle.
everyone = set(LIFECYCLE)
roots = sorted(os.path.basename(p) for p in core
               if p.endswith('.c') and everyone <= set(includes(p)))
print(f'{"ok" if roots == ["lca_runtime.c"] else "not ok"} - core: only lca_runtime.c '
      f'includes every subsystem header (found: {", ".join(roots) or "none"})')
fail |= roots != ['lca_runtime.c']

# Each subsystem's init, poll and cleanup: called from lca_runtime.c and its
# own file alone; lca_actor.c calls none of them.
for header, fns in LIFECYCLE.items():
    for fn in fns:
        callers = sorted(os.path.basename(p) for p in core
                         if p.endswith('.c') and re.search(r'\b' + fn + r'\s*\(', code(p)))
        owners = {'lca_runtime.c'} | LIFECYCLE_ALSO.get(fn, set())
        # its own file defines it: the one whose row names its header first
        stray = [c for c in callers if c not in owners and not
                 re.search(r'^[a-z_ ]*\n?' + fn + r'\s*\(', code(os.path.join(root, 'actors', c)),
                           re.M)]
        print(f'{"not ok" if stray else "ok"} - core: {fn}() called only from lca_runtime.c'
              + (f' (also from {", ".join(stray)})' if stray else ''))
        fail |= bool(stray)

# The parts above the core take lca_route_priv.h from it, nothing else private.
for part, allowed in (('port', set()), ('remote', {'lca_route_priv.h'})):
    for path in sorted(glob.glob(os.path.join(root, 'actors', part, '*.[ch]'))):
        extra = sorted(set(includes(path)) & PRIVATE - allowed)
        print(f'{"not ok" if extra else "ok"} - {part}: {os.path.basename(path)} includes no '
              f'private header of the core' + (' but lca_route_priv.h' if allowed else '')
              + (f' (it includes {", ".join(extra)})' if extra else ''))
        fail |= bool(extra)
sys.exit(fail)
PY
