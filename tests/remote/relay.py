"""relay.py HOST PORT: a ProxyCommand, stdin to a TCP connection to
HOST:PORT and back, 4 KiB at a time: slower than libssh2 writes, so the
socketpair calops gives it fills (sshinput_test.sh, sshtunnel_test.sh).
Both ways at once, as a network is: a way blocked on its writer does not
stop the other (a relay that waited in one write while the other side
waited for it to read would hang the connection itself)."""
import os
import select
import socket
import sys

sock = socket.create_connection((sys.argv[1], int(sys.argv[2])))
sock.setblocking(False)
for fd in (0, 1):
    os.set_blocking(fd, False)
src = {0: sock.fileno(), sock.fileno(): 1}      # reader -> writer
pending = {0: b"", sock.fileno(): b""}          # by reader: not yet written
reading = [0, sock.fileno()]


def ended(rfd):
    if rfd == 0:
        sock.shutdown(socket.SHUT_WR)
    else:
        os.close(1)


while reading or any(pending.values()):
    rset = [fd for fd in reading if not pending[fd]]
    wset = [src[fd] for fd in pending if pending[fd]]
    ready_r, ready_w, _ = select.select(rset, wset, [])
    for fd in ready_r:
        try:
            data = os.read(fd, 4096)
        except BlockingIOError:
            continue
        if not data:
            reading.remove(fd)
            ended(fd)
            continue
        pending[fd] = data
    for rfd in pending:
        if pending[rfd] and src[rfd] in ready_w:
            try:
                n = os.write(src[rfd], pending[rfd])
            except BlockingIOError:
                continue
            pending[rfd] = pending[rfd][n:]
