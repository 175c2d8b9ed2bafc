#!/usr/bin/env python3
# swap.py A B STOP: exchange the names A and B (renameat2 RENAME_EXCHANGE)
# as fast as it can until the file STOP exists: a race a copier must survive.
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
a, b = os.fsencode(sys.argv[1]), os.fsencode(sys.argv[2])
while not os.path.exists(sys.argv[3]):
    for _ in range(1000):
        if libc.renameat2(-100, a, -100, b, 2) != 0:  # RENAME_EXCHANGE
            sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))
