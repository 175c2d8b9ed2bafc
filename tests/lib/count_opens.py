#!/usr/bin/env python3
# count_opens.py STOP PATHS...: how many times the inodes of PATHS were opened
# (inotify IN_OPEN; an O_PATH open is none) until the file STOP exists.
# Creates STOP.ready once watching, and prints the count at the end.
import ctypes, os, select, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(os.O_NONBLOCK)
for p in sys.argv[2:]:
    if libc.inotify_add_watch(fd, os.fsencode(p), 0x20) < 0:  # IN_OPEN
        sys.exit("inotify_add_watch: " + os.strerror(ctypes.get_errno()))
open(sys.argv[1] + ".ready", "w").close()
n = 0
def drain():
    global n
    while True:
        try:
            buf = os.read(fd, 65536)
        except BlockingIOError:
            return
        i = 0
        while i < len(buf):
            _, mask, _, ln = struct.unpack_from("iIII", buf, i)
            n += bool(mask & 0x20)
            i += 16 + ln
while not os.path.exists(sys.argv[1]):
    select.select([fd], [], [], 0.05)
    drain()
drain()
print(n)
