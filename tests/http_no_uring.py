#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Run a command where io_uring is refused (tests/e2e_http.sh).

Usage: http_no_uring.py CMD [ARGS...]

Installs a seccomp filter that answers io_uring_setup(2) with EPERM, as a
container's or a hardened kernel's policy does, then executes CMD: so
lca-httpd's --io auto fallback and --io uring's refusal can be checked on
a kernel that allows io_uring. Exits 77 where it cannot (not x86_64, or no
seccomp).
"""
import ctypes
import os
import platform
import struct
import sys

NR_IO_URING_SETUP = 425          # x86_64
AUDIT_ARCH_X86_64 = 0xC000003E
PR_SET_NO_NEW_PRIVS = 38
PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2
RET_ALLOW = 0x7FFF0000
RET_ERRNO_EPERM = 0x00050000 | 1
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if platform.machine() != "x86_64":
        print("http_no_uring: only on x86_64", file=sys.stderr)
        sys.exit(77)
    prog = [
        (LD_W_ABS, 0, 0, 4),                      # seccomp_data.arch
        (JEQ_K, 0, 3, AUDIT_ARCH_X86_64),
        (LD_W_ABS, 0, 0, 0),                      # seccomp_data.nr
        (JEQ_K, 0, 1, NR_IO_URING_SETUP),
        (RET_K, 0, 0, RET_ERRNO_EPERM),
        (RET_K, 0, 0, RET_ALLOW),
    ]
    raw = b"".join(struct.pack("HBBI", *ins) for ins in prog)
    buf = ctypes.create_string_buffer(raw, len(raw))
    fprog = SockFprog(len(prog), ctypes.addressof(buf))
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        print("http_no_uring: seccomp: %s" % os.strerror(ctypes.get_errno()), file=sys.stderr)
        sys.exit(77)
    os.execvp(sys.argv[1], sys.argv[1:])


if __name__ == "__main__":
    main()
