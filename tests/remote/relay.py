"""relay.py HOST PORT: a ProxyCommand, stdin to a TCP connection to
HOST:PORT and back, 4 KiB at a time: slower than libssh2 writes, so the
socketpair calops gives it fills (sshinput_test.sh)."""
import os
import select
import socket
import sys

sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
ends = {0: sock, sock.fileno(): 1}
open_ = [0, sock.fileno()]
while open_:
    ready, _, _ = select.select(open_, [], [])
    for fd in ready:
        data = os.read(fd, 4096)
        if not data:
            open_.remove(fd)
            if fd == 0:
                sock.shutdown(socket.SHUT_WR)
            else:
                os.close(1)
            continue
        if fd == 0:
            sock.sendall(data)
        else:
            out = memoryview(data)
            while out:
                out = out[os.write(1, out):]
